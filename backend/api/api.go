package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

// Transport is a set of front ends that carry a method.
type Transport uint8

const (
	// Window is the desktop window (Wails).
	Window Transport = 1 << iota
	// HTTP is `warden serve`'s POST /api/<Method>.
	HTTP
	// Both is every transport.
	Both = Window | HTTP
)

// None stands for "no request" or "no result": a method whose request is
// None takes no argument, one whose response is None returns only an error
// (JSON null).
type None struct{}

// ErrNotConnected is returned when the runtime a method needs is not there
// (the desktop window could not open its database, say).
var ErrNotConnected = errors.New("the agent runtime is not connected")

// ErrNoSettings is returned when the settings a method needs are not there;
// it is a kind of ErrNotConnected, so a window without a backend fails every
// method alike.
var ErrNoSettings = fmt.Errorf("settings are not available: %w", ErrNotConnected)

// Services are what the methods call. A nil service fails the methods that
// need it with ErrNotConnected or ErrNoSettings, wrapping Cause when set.
type Services struct {
	Runtime  *runtime.Service
	Settings *settings.Service
	// Cause is why the services are missing (a locked database, a bad
	// config file), told with every failed call.
	Cause error
}

func (s Services) runtime() (*runtime.Service, error) {
	if s.Runtime == nil {
		return nil, s.missing(ErrNotConnected)
	}
	return s.Runtime, nil
}

func (s Services) settings() (*settings.Service, error) {
	if s.Settings == nil {
		return nil, s.missing(ErrNoSettings)
	}
	return s.Settings, nil
}

func (s Services) missing(err error) error {
	if s.Cause != nil {
		return fmt.Errorf("%w: %w", err, s.Cause)
	}
	return err
}

// Method is one entry of the API.
type Method struct {
	Name string
	// Doc says what the method does, in one sentence; it becomes the
	// comment of the generated Wails method.
	Doc string
	// Transports carry the method.
	Transports Transport
	// Request and Response are the types on the wire (None: nothing).
	Request, Response reflect.Type
	// ByHand is set for a window method the app implements itself (native
	// dialogs, the ready marker, the build's version): no wrapper is
	// generated for it, and the HTTP side, if it has the method, calls Call.
	ByHand bool
	// NullableResult: the result may be JSON null (a nil slice).
	NullableResult bool
	// call runs the method on decoded arguments; nil for window methods
	// that only the app implements.
	call func(ctx context.Context, s Services, req any) (any, error)
}

// Def is a method with its types: the generated Wails wrappers call Call,
// so a change of a request or response type is a compile error there.
type Def[Req, Resp any] struct {
	m *Method
	f func(ctx context.Context, s Services, req Req) (Resp, error)
}

// Call runs the method.
func (d Def[Req, Resp]) Call(ctx context.Context, s Services, req Req) (Resp, error) {
	return d.f(ctx, s, req)
}

// Method returns the method's entry.
func (d Def[Req, Resp]) Method() *Method { return d.m }

// BadRequestError is a request body that does not decode into the method's
// request type.
type BadRequestError struct{ Err error }

func (e *BadRequestError) Error() string { return "bad arguments: " + e.Err.Error() }
func (e *BadRequestError) Unwrap() error { return e.Err }

// Invoke decodes a JSON request strictly (unknown fields are refused; an
// empty body is {}) and runs the method. The result is nil for a method
// without one.
func (m *Method) Invoke(ctx context.Context, s Services, body []byte) (any, error) {
	if m.call == nil {
		return nil, fmt.Errorf("%s is implemented by the desktop window only", m.Name)
	}
	req := reflect.New(m.Request)
	if m.Request != noneType {
		if len(bytes.TrimSpace(body)) == 0 {
			body = []byte("{}")
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(req.Interface()); err != nil {
			return nil, &BadRequestError{err}
		}
	}
	out, err := m.call(ctx, s, req.Elem().Interface())
	if err != nil {
		return nil, err
	}
	if m.Response == noneType {
		return nil, nil
	}
	return out, nil
}

var noneType = reflect.TypeFor[None]()

// all is every method defined, in definition order: define registers
// each, so a method cannot be left out of Methods.
var all []*Method

// define makes a method entry; the list in methods.go is its only caller.
func define[Req, Resp any](name, doc string, t Transport, f func(ctx context.Context, s Services, req Req) (Resp, error)) Def[Req, Resp] {
	m := &Method{Name: name, Doc: doc, Transports: t, Request: reflect.TypeFor[Req](), Response: reflect.TypeFor[Resp]()}
	if f != nil {
		m.call = func(ctx context.Context, s Services, req any) (any, error) { return f(ctx, s, req.(Req)) }
	}
	all = append(all, m)
	return Def[Req, Resp]{m: m, f: f}
}

// onRuntime adapts a runtime method to a definition.
func onRuntime[Req, Resp any](f func(svc *runtime.Service, ctx context.Context, req Req) (Resp, error)) func(context.Context, Services, Req) (Resp, error) {
	return func(ctx context.Context, s Services, req Req) (Resp, error) {
		svc, err := s.runtime()
		if err != nil {
			var zero Resp
			return zero, err
		}
		return f(svc, ctx, req)
	}
}

// onSettings adapts a settings method to a definition.
func onSettings[Req, Resp any](f func(svc *settings.Service, ctx context.Context, req Req) (Resp, error)) func(context.Context, Services, Req) (Resp, error) {
	return func(ctx context.Context, s Services, req Req) (Resp, error) {
		svc, err := s.settings()
		if err != nil {
			var zero Resp
			return zero, err
		}
		return f(svc, ctx, req)
	}
}

// byHand marks a method the app implements.
func byHand[Req, Resp any](d Def[Req, Resp]) Def[Req, Resp] {
	d.m.ByHand = true
	return d
}

// nullable marks a method whose result may be null.
func nullable[Req, Resp any](d Def[Req, Resp]) Def[Req, Resp] {
	d.m.NullableResult = true
	return d
}

// noErr lifts a method that returns only an error.
func noErr(err error) (None, error) { return None{}, err }
