package app

import (
	"reflect"
	"slices"
	"testing"

	"github.com/warden-dev/warden/backend/api"
	"github.com/warden-dev/warden/backend/server"
)

// The window binds exactly the API definition's window methods, each with
// the definition's request and response types: Wails binds every exported
// method of App, so a stray one would be callable from the page.
func TestWindowBindsExactlyTheDefinition(t *testing.T) {
	app := reflect.TypeFor[*App]()
	var bound []string
	for i := range app.NumMethod() {
		bound = append(bound, app.Method(i).Name)
	}
	var want []string
	errType := reflect.TypeFor[error]()
	none := reflect.TypeFor[api.None]()
	for _, m := range api.On(api.Window) {
		want = append(want, m.Name)
		fn, ok := app.MethodByName(m.Name)
		if !ok {
			continue
		}
		var in, out []reflect.Type
		for i := 1; i < fn.Type.NumIn(); i++ { // 0 is the receiver
			in = append(in, fn.Type.In(i))
		}
		for i := range fn.Type.NumOut() {
			out = append(out, fn.Type.Out(i))
		}
		var wantIn, wantOut []reflect.Type
		if m.Request != none {
			wantIn = append(wantIn, m.Request)
		}
		if m.Response != none {
			wantOut = append(wantOut, m.Response)
		}
		wantOut = append(wantOut, errType)
		if !slices.Equal(in, wantIn) || !slices.Equal(out, wantOut) {
			t.Errorf("App.%s is func%v %v, the definition says func%v %v", m.Name, in, out, wantIn, wantOut)
		}
	}
	slices.Sort(bound)
	slices.Sort(want)
	if !slices.Equal(bound, want) {
		t.Errorf("App binds %v,\nthe definition's window methods are %v", bound, want)
	}
}

// The window and `warden serve` speak the same methods, apart from the ones
// the definition gives one transport only (and says why).
func TestWindowAndHTTPCarryTheSameMethods(t *testing.T) {
	app := reflect.TypeFor[*App]()
	window := map[string]bool{}
	for i := range app.NumMethod() {
		window[app.Method(i).Name] = true
	}
	http := map[string]bool{}
	for _, n := range server.Methods() {
		http[n] = true
	}
	only := map[string]api.Transport{}
	for _, m := range api.Methods() {
		if m.Transports != api.Both {
			only[m.Name] = m.Transports
		}
	}
	for n := range window {
		if !http[n] && only[n] != api.Window {
			t.Errorf("%s is bound in the window but not served over HTTP", n)
		}
	}
	for n := range http {
		if !window[n] && only[n] != api.HTTP {
			t.Errorf("%s is served over HTTP but not bound in the window", n)
		}
	}
	for n, tr := range only {
		if (tr == api.Window) != window[n] || (tr == api.HTTP) != http[n] {
			t.Errorf("%s: the definition says %v only, but window=%v http=%v", n, tr, window[n], http[n])
		}
	}
}
