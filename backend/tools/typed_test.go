package tools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// Every built-in is made with the typed adapter: it decodes its arguments
// once per call (Preparer), and the model reads the .md file beside its Go
// file, word for word.
func TestBuiltinsAreTyped(t *testing.T) {
	reg, err := Builtins(testCage(t), NewMonitors(testCage(t)), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range reg.List() {
		t.Run(tool.Name(), func(t *testing.T) {
			if _, ok := tool.(Preparer); !ok {
				t.Fatalf("%s is not made with the typed adapter", tool.Name())
			}
			md := strings.ReplaceAll(tool.Name(), ".", "_") + ".md"
			b, err := os.ReadFile(md)
			if err != nil {
				t.Fatalf("the description file beside the tool: %v", err)
			}
			if want := strings.TrimSpace(string(b)); tool.Description() != want || want == "" {
				t.Fatalf("description %q, the file says %q", tool.Description(), want)
			}
			var schema map[string]any
			if err := json.Unmarshal(tool.Schema(), &schema); err != nil || schema["type"] != "object" {
				t.Fatalf("schema %s: %v", tool.Schema(), err)
			}
		})
	}
}

// counted is an argument type that counts how often it is decoded.
type counted struct {
	Path string `json:"path"`
}

var decodes atomic.Int32

func (c *counted) UnmarshalJSON(b []byte) error {
	decodes.Add(1)
	var x struct {
		Path string `json:"path"`
	}
	err := json.Unmarshal(b, &x)
	c.Path = x.Path
	return err
}

// A prepared call decodes its arguments once: its effects, asked for again
// and again, and its invoke all read the decoded value.
func TestTypedDecodesOnce(t *testing.T) {
	tool := NewTyped(Spec[counted]{Name: "count", Description: "counts",
		Effects: func(a counted, env Env) ([]policy.Effect, error) {
			return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{a.Path}}}, nil
		},
		Invoke: func(_ context.Context, a counted, _ Env) (Result, error) { return TextResult(a.Path), nil }})
	decodes.Store(0)
	p, err := Prepare(tool, json.RawMessage(`{"path":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := p.Effects(Env{}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := p.Invoke(context.Background(), Env{})
	if err != nil || text(res) != "a" {
		t.Fatalf("%+v %v", res, err)
	}
	if n := decodes.Load(); n != 1 {
		t.Fatalf("decoded %d times, want once", n)
	}
}

// The raw path (Effects, Invoke with JSON) and the prepared one refuse the
// same arguments with the same words, for every built-in.
func TestPrepareRefusesWhatEffectsRefuses(t *testing.T) {
	reg, err := Builtins(testCage(t), NewMonitors(testCage(t)), "")
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	bad := []string{`[]`, `{"unknown":1}`, `{"path":1}`, `{"command":""}`, `{"command":"true","timeout_ms":-1}`,
		`{"pattern":""}`, `{"patch":"not a patch"}`, `{"depth":99}`, `{"offset":-1,"path":"x"}`,
		`{"command":"x","watch_path":"y"}`, `{"id":""}`, `{"id":"m","wait_sec":301}`, `{"command":"true","env":{"1x":"y"}}`}
	for _, tool := range reg.List() {
		for _, args := range bad {
			_, perr := Prepare(tool, json.RawMessage(args))
			_, eerr := tool.Effects(json.RawMessage(args), env)
			if perr == nil {
				continue // usable for this tool; Effects may still refuse a path
			}
			if eerr == nil || eerr.Error() != perr.Error() {
				t.Errorf("%s %s: Prepare says %v, Effects says %v", tool.Name(), args, perr, eerr)
			}
		}
	}
}
