package browser

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func loadCases[T any](t testing.TB, name string) []T {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var cases []T
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cases
}

func TestTargetOrigin(t *testing.T) {
	type tc struct {
		Note     string
		URL      string
		Origin   string
		Loopback bool
		Error    string
	}
	for _, c := range loadCases[tc](t, "origins.json") {
		t.Run(c.Note, func(t *testing.T) {
			_, origin, err := TargetOrigin(c.URL)
			if c.Error != "" {
				if err == nil || !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("TargetOrigin(%q) error = %v, want one containing %q", c.URL, err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("TargetOrigin(%q): %v", c.URL, err)
			}
			if origin != c.Origin {
				t.Errorf("origin = %q, want %q", origin, c.Origin)
			}
			if got := IsLoopbackOrigin(origin); got != c.Loopback {
				t.Errorf("IsLoopbackOrigin(%q) = %v, want %v", origin, got, c.Loopback)
			}
		})
	}
}

func TestParseAction(t *testing.T) {
	type tc struct {
		Note  string
		Input json.RawMessage
		Error string
	}
	for _, c := range loadCases[tc](t, "actions.json") {
		t.Run(c.Note, func(t *testing.T) {
			a, err := ParseAction(c.Input)
			if c.Error != "" {
				if err == nil || !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("ParseAction(%s) error = %v, want one containing %q", c.Input, err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseAction(%s): %v", c.Input, err)
			}
			if a.Action == VerbNavigate && a.origin == "" {
				t.Errorf("navigate parsed without an origin")
			}
		})
	}
}

func TestParseBatch(t *testing.T) {
	many := `{"actions": [` + strings.Repeat(`{"action": "get_text"},`, maxBatch) + `{"action": "get_text"}]}`
	cases := []struct {
		name, input, err string
		steps            int
	}{
		{"two steps", `{"actions": [{"action": "navigate", "url": "http://localhost/"}, {"action": "get_text"}]}`, "", 2},
		{"empty list", `{"actions": []}`, "at least one", 0},
		{"missing list", `{}`, "at least one", 0},
		{"bad step named by number", `{"actions": [{"action": "get_text"}, {"action": "click"}]}`, "step 2", 0},
		{"unknown top-level field", `{"actions": [{"action": "get_text"}], "stop": false}`, "unknown field", 0},
		{"too many", many, "at most", 0},
		{"not json", `{"actions": [`, "invalid browser batch", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, err := ParseBatch(json.RawMessage(c.input))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil || len(steps) != c.steps {
				t.Fatalf("ParseBatch = %d steps, %v; want %d", len(steps), err, c.steps)
			}
		})
	}
}

func TestPlannedOrigins(t *testing.T) {
	steps, err := ParseBatch(json.RawMessage(`{"actions": [
		{"action": "click", "selector": "a"},
		{"action": "navigate", "url": "http://localhost:9/x"},
		{"action": "fill", "selector": "#a", "value": "v"},
		{"action": "navigate", "url": "https://example.com/"},
		{"action": "screenshot"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := plannedOrigins(steps, "http://127.0.0.1:80")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://127.0.0.1:80", "http://localhost:9", "http://localhost:9", "https://example.com:443", "https://example.com:443"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("plannedOrigins = %v, want %v", got, want)
	}
	if _, err := plannedOrigins(steps, ""); err == nil || !strings.Contains(err.Error(), "step 1") {
		t.Errorf("a click before any page should fail naming step 1, got %v", err)
	}
}

func FuzzTargetOrigin(f *testing.F) {
	for _, s := range []string{"http://localhost:8080/", "https://[::1]/", "file:///x", "http://a@b/", "HTTP://X:1", "javascript:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, origin, err := TargetOrigin(raw)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("accepted scheme %q from %q", u.Scheme, raw)
		}
		// An origin must survive a round trip unchanged: the policy and
		// the request filter both re-read it.
		_, again, err := TargetOrigin(origin)
		if err != nil || again != origin {
			t.Fatalf("origin %q of %q does not round-trip: %q, %v", origin, raw, again, err)
		}
	})
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{`{"action":"navigate","url":"http://localhost/"}`, `{"action":"wait_for","text":"x"}`, `{"action":"fill","selector":"a"}`, `[]`, `{"action":"click","timeout_ms":5}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		a, err := ParseAction(json.RawMessage(raw))
		if err != nil {
			return
		}
		if _, err := actionEffect(a, "http://localhost:1"); err != nil {
			t.Fatalf("a parsed action has no effect: %+v: %v", a, err)
		}
		if a.Action == VerbNavigate && a.origin == "" {
			t.Fatalf("navigate without origin: %q", raw)
		}
	})
}

func FuzzParseBatch(f *testing.F) {
	f.Add(`{"actions":[{"action":"navigate","url":"http://localhost/"},{"action":"click","selector":"a"}]}`)
	f.Add(`{"actions":[]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		steps, err := ParseBatch(json.RawMessage(raw))
		if err != nil {
			return
		}
		if len(steps) == 0 || len(steps) > maxBatch {
			t.Fatalf("accepted a batch of %d steps", len(steps))
		}
		if steps[0].Action == VerbNavigate {
			if _, err := plannedOrigins(steps, ""); err != nil {
				t.Fatalf("a batch opening with navigate has no plan: %v", err)
			}
		}
	})
}
