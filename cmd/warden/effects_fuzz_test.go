package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// FuzzCallEffects feeds arbitrary tool names and argument JSON to the
// effects parser (patch headers and URLs included): it must return effects
// or an error, never panic, and answer the same twice.
func FuzzCallEffects(f *testing.F) {
	f.Add("shell.exec", `{"command":"ls","cwd":"sub"}`)
	f.Add("patch.apply", `{"patch":"--- a/x\n+++ b/x\n*** Delete File: y\n"}`)
	f.Add("browser.action", `{"action":"navigate","url":"http://[::1]:80/"}`)
	f.Add("mcp-tool:a/b", `null`)
	f.Add("fs.write", `{"path":"../../etc/x"}`)
	ws := f.TempDir()
	f.Fuzz(func(t *testing.T, tool, args string) {
		a, errA := callEffects(tool, json.RawMessage(args), ws)
		b, errB := callEffects(tool, json.RawMessage(args), ws)
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
			t.Fatalf("not deterministic for %q %q", tool, args)
		}
		for _, e := range a {
			for _, p := range e.Paths {
				if p == "" || p[0] != '/' {
					t.Fatalf("unresolved path %q from %q %q", p, tool, args)
				}
			}
			if e.Kind == policy.EffectExec && e.Command == "" {
				t.Fatalf("exec without command from %q %q", tool, args)
			}
		}
	})
}
