//go:build !wardenslim

package main

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
)

// FuzzPolicyCheckLine: any input line is an error or a decision — never a
// panic — and the same line decides the same way twice, through the
// graph's registered tools.
func FuzzPolicyCheckLine(f *testing.F) {
	home := f.TempDir()
	f.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	f.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	f.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	f.Setenv("WARDEN_DB", "")
	ws := f.TempDir()
	g, err := assemble.Open(context.Background(), assemble.Options{Workspace: ws, Headless: true, NoModel: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = g.Close() })
	var cf checkFlags
	cf.workspace, cf.approval, cf.sandbox, cf.caged = ws, "on-request", "workspace-write", "false"
	s, err := cf.axisFlags.session()
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"tool":"fs.read","args":{"path":"a"}}`,
		`{"tool":"shell.exec","args":{"command":"ls && rm -rf build"}}`,
		`{"tool":"patch.apply","args":{"patch":"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}}`,
		`{"tool":"browser.batch","args":{"actions":[{"action":"navigate","url":"http://127.0.0.1:1/"}]}}`,
		`{"tool":"computer.use","args":{"action":"type","text":"hi"}}`,
		`{"tool":"write_plan"}`,
		`{"tool":"fs.write","args":null}`,
		`{"tool":"","args":{}}`,
		`not json`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a, _, errA := checkOne(line, g, s, cf)
		b, _, errB := checkOne(line, g, s, cf)
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
			t.Fatalf("not deterministic: %v %v / %+v %+v", errA, errB, a, b)
		}
		if errA == nil {
			switch a.Decision {
			case policy.VerdictAllow, policy.VerdictAsk, policy.VerdictDeny:
			default:
				t.Fatalf("decision %q", a.Decision)
			}
		}
	})
}
