package api

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestTheDefinitionIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Methods() {
		if seen[m.Name] {
			t.Errorf("%s is defined twice", m.Name)
		}
		seen[m.Name] = true
		if m.Doc == "" || !strings.HasSuffix(m.Doc, ".") {
			t.Errorf("%s: Doc %q is not a sentence", m.Name, m.Doc)
		}
		if m.Transports == 0 {
			t.Errorf("%s is carried by no transport", m.Name)
		}
		// Only the window may carry a method it implements alone.
		if m.call == nil && (!m.ByHand || m.Transports != Window) {
			t.Errorf("%s has no implementation but is carried by %v", m.Name, m.Transports)
		}
	}
	if len(On(Window)) == 0 || len(On(HTTP)) == 0 {
		t.Fatal("a transport carries nothing")
	}
}

func TestInvoke(t *testing.T) {
	cause := errors.New("database is locked")
	cases := []struct {
		name     string
		method   *Method
		body     string
		services Services
		want     func(error) bool
	}{
		{"an unknown field is a bad request", RenameSession.m, `{"session_id":"s","titel":"x"}`, Services{}, isBad},
		{"a wrong type is a bad request", SetPlanning.m, `{"session_id":"s","planning":"yes"}`, Services{}, isBad},
		{"an unknown enum value is a bad request", SetApprovalPolicy.m, `{"session_id":"s","approval":"sometimes"}`, Services{}, isBad},
		{"trailing data is ignored like the JSON decoder does", Cancel.m, `{"session_id":"s"} {"x":1}`, Services{}, is(ErrNotConnected)},
		{"an empty body is {}", ListSessions.m, ``, Services{}, is(ErrNotConnected)},
		{"no runtime: not connected, with the cause", ListGrants.m, `{"session_id":"s"}`, Services{Cause: cause},
			func(err error) bool { return errors.Is(err, ErrNotConnected) && errors.Is(err, cause) }},
		{"no settings", GetSettings.m, ``, Services{}, is(ErrNoSettings)},
		{"a window-only method cannot be invoked", PickFolder.m, `{}`, Services{},
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "desktop window only") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.method.Invoke(context.Background(), tc.services, []byte(tc.body))
			if !tc.want(err) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func isBad(err error) bool {
	var br *BadRequestError
	return errors.As(err, &br)
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// FuzzInvoke feeds arbitrary bodies to every method's strict decoder: the
// answer is a bad request or the missing service, never a panic.
func FuzzInvoke(f *testing.F) {
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"workspace":"/tmp","approval":"never","sandbox":{"kind":"read-only"}}`,
		`{"request_id":"x","answer":"always","scope":"workspace","expires_in_sec":60}`, `{"approval":"sometimes"}`,
		`{"sandbox":{"kind":7}}`, `{"a":1}{"b":2}`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, m := range On(HTTP) {
			_, err := m.Invoke(context.Background(), Services{}, body)
			if err == nil || isBad(err) || errors.Is(err, ErrNotConnected) || errors.Is(err, ErrNoSettings) {
				continue
			}
			t.Fatalf("%s: error %T is neither a bad request nor a missing service: %v", m.Name, err, err)
		}
	})
}
