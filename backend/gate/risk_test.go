package gate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// TestAskRiskFromEffects: the risk an ask carries to the prompt (the
// window's badge, the TUI's risk line) is read from the call's effects by
// policy.RiskOf, not declared per tool: `ls -la` and `rm -rf build` are both
// shell.exec, and only one of them is High. Every call asks here (approval
// Always) so every case has a request to read; nobody answers, so none runs.
func TestAskRiskFromEffects(t *testing.T) {
	cage := sandbox.New(sandbox.Config{})
	if st := cage.Detect(context.Background()); !st.Available {
		t.Fatalf("cage: %s", st.Reason)
	}
	t.Cleanup(func() { _ = cage.Close() })
	raw, err := os.ReadFile(filepath.Join("testdata", "ask-risk.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string          `json:"name"`
		Tool    string          `json:"tool"`
		Args    json.RawMessage `json:"args"`
		Sandbox string          `json:"sandbox"`
		Want    policy.Risk     `json:"want"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	byName := map[string]tools.Tool{"shell.exec": tools.NewShellExec(cage), "fs.read": tools.NewFsRead(), "fs.write": tools.NewFsWrite()}
	seen := map[policy.Risk]bool{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			tool := byName[c.Tool]
			if tool == nil {
				t.Fatalf("no tool %q in the test's table", c.Tool)
			}
			ws, _ := filepath.EvalSymlinks(t.TempDir())
			if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("warden\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := policy.Session{Workspace: ws, Caged: true, Approval: policy.Always}
			if c.Sandbox == "full" {
				s.Sandbox.Kind = policy.DangerFullAccess
			}
			evs := callThrough(t, s, tool, string(c.Args))
			r, ok := evs[0].Event.(store.PermissionRequested)
			if !ok {
				t.Fatalf("first event %T %+v, want a request", evs[0].Event, evs[0].Event)
			}
			if r.Risk != c.Want {
				t.Fatalf("risk %q, want %q (effects %+v)", r.Risk, c.Want, r.Effects)
			}
			if _, ok := evs[1].Event.(store.PermissionDenied); !ok {
				t.Fatalf("nobody answered, yet %T", evs[1].Event)
			}
			seen[r.Risk] = true
		})
	}
	if !seen[policy.RiskLow] || !seen[policy.RiskMedium] || !seen[policy.RiskHigh] {
		t.Fatalf("the cases must reach every risk, got %v", seen)
	}
}
