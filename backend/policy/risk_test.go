package policy

import (
	"encoding/json"
	"os"
	"testing"
)

type riskCase struct {
	Note    string   `json:"note"`
	Sandbox string   `json:"sandbox"`
	Caged   *bool    `json:"caged"`
	Roots   []string `json:"roots"`
	Effects []Effect `json:"effects"`
	Want    Risk     `json:"want"`
}

func TestRiskOf(t *testing.T) {
	raw, err := os.ReadFile("testdata/risk.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []riskCase }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 50 {
		t.Fatalf("only %d cases", len(file.Cases))
	}
	seen := map[Risk]int{}
	for _, c := range file.Cases {
		t.Run(c.Note, func(t *testing.T) {
			s := Session{Workspace: "/ws", Caged: true, Sandbox: SandboxPolicy{Kind: WorkspaceWrite, WritableRoots: c.Roots}}
			if c.Sandbox != "" {
				k, err := ParseSandboxKind(c.Sandbox)
				if err != nil {
					t.Fatal(err)
				}
				s.Sandbox.Kind = k
			}
			if c.Caged != nil {
				s.Caged = *c.Caged
			}
			got := RiskOf(Call{Tool: "t", Effects: c.Effects}, s)
			if got != c.Want {
				t.Errorf("RiskOf = %s, want %s", got, c.Want)
			}
			seen[got]++
		})
	}
	for _, r := range []Risk{RiskLow, RiskMedium, RiskHigh} {
		if seen[r] == 0 {
			t.Errorf("no case ends %s", r)
		}
	}
}

// The risk never falls when an effect is added: a call is as risky as its
// worst effect.
func TestRiskOfWorstEffectWins(t *testing.T) {
	s := Session{Workspace: "/ws", Caged: true}
	effects := []Effect{{Kind: EffectRead}, {Kind: EffectExec, Command: "touch a"}, {Kind: EffectExec, Command: "rm -rf a"}}
	prev := RiskLow
	for i := range effects {
		got := RiskOf(Call{Effects: effects[:i+1]}, s)
		if riskRank(got) < riskRank(prev) {
			t.Fatalf("adding %v lowered the risk from %s to %s", effects[i], prev, got)
		}
		prev = got
	}
	if prev != RiskHigh {
		t.Fatalf("ended %s", prev)
	}
}
