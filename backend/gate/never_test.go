package gate

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// neverCase is one decision of testdata/answerer-never.jsonl and who
// must answer it: "decided" (a denial: no answerer, no human), "human"
// (only a human answers: no answerer is asked) or "answerer" (the
// lineup answers).
type neverCase struct {
	Name    string          `json:"name"`
	Verdict policy.Verdict  `json:"verdict"`
	Reasons []policy.Reason `json:"reasons"`
	Sandbox string          `json:"sandbox"`
	Want    string          `json:"want"`
}

func readNever(t *testing.T) []neverCase {
	t.Helper()
	f, err := os.Open("testdata/answerer-never.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []neverCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.DisallowUnknownFields()
		var c neverCase
		if err := d.Decode(&c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		out = append(out, c)
	}
	return out
}

func sandboxNamed(t *testing.T, s string) policy.SandboxPolicy {
	name, net := strings.CutSuffix(s, "+net")
	k, err := policy.ParseSandboxKind(name)
	if err != nil {
		t.Fatal(err)
	}
	return policy.SandboxPolicy{Kind: k, NetworkAccess: net}
}

// The contract's "never" for answerers, one decision at a time, with two
// answerers that allow everything: a denial never reaches them; a
// protected path, a secret read, an escalation, a hook's ask, desktop
// control, an untrusted MCP server and a write outside the workspace under
// full access go to the human, who is told why no answerer was asked; what
// they may answer they answer for that call only — no grant, no rule, no
// axis changed, and the same call is asked again.
func TestAnswerersNever(t *testing.T) {
	cases := readNever(t)
	wants := map[string]int{}
	for _, c := range cases {
		wants[c.Want]++
	}
	if wants["decided"] < 4 || wants["human"] < 8 || wants["answerer"] < 4 {
		t.Fatalf("too few cases: %v", wants)
	}
	for _, tc := range cases {
		t.Run(tc.Want+"/"+tc.Name, func(t *testing.T) {
			d := policy.Decision{Verdict: tc.Verdict, Reasons: tc.Reasons, Signature: "fs.write", Layer: policy.LayerPolicy}
			if tc.Verdict == policy.VerdictDeny {
				d.Reasons, d.Reason, d.Layer = nil, tc.Reasons[0], policy.LayerSandbox
			}
			first := &scripted{kind: "command", v: Verdict{Answer: AnswererAllow, Why: "fine by corp"}}
			second := &scripted{kind: "model", v: Verdict{Answer: AnswererAllow, Why: "looks fine"}}
			r := newSeatRig(t, d, func(c *Config) { c.Answerers = []Answerer{first, second} })
			r.env.Sandbox = sandboxNamed(t, tc.Sandbox)

			for call := 1; call <= 2; call++ {
				done := r.write(t)
				if tc.Want == "human" {
					p := r.pending(t, 1)[0]
					if len(p.Answers) != 0 || len(p.Notes) != 1 || !strings.HasPrefix(p.Notes[0], "Only you answer this ask (") {
						t.Fatalf("the human was not told why no answerer was asked: %+v %q", p.Answers, p.Notes)
					}
					if _, err := r.g.Answer(context.Background(), AnswerArgs{RequestID: p.RequestID, Answer: AnswerOnce, Via: ViaWindow}, nil); err != nil {
						t.Fatal(err)
					}
				}
				out := <-done
				got := out.Decision
				switch tc.Want {
				case "decided":
					if got.Verdict != policy.VerdictDeny || got.Layer == policy.LayerAnswerer || got.Layer == policy.LayerHuman || out.Invoked {
						t.Fatalf("call %d: %+v", call, got)
					}
				case "human":
					if got.Verdict != policy.VerdictAllow || got.Layer != policy.LayerHuman {
						t.Fatalf("call %d: %+v", call, got)
					}
				case "answerer":
					if got.Verdict != policy.VerdictAllow || got.Layer != policy.LayerAnswerer || got.LayerDetail != "command" ||
						got.Detail != "fine by corp" {
						t.Fatalf("call %d: %+v", call, got)
					}
				default:
					t.Fatalf("want %q", tc.Want)
				}
			}
			asked := 0
			if tc.Want == "answerer" {
				asked = 2 // once per call: the first allow left nothing behind
			}
			if first.n != asked || second.n != 0 {
				t.Fatalf("answerers asked %d and %d times, want %d and 0", first.n, second.n, asked)
			}
			evs, err := r.st.Events(context.Background(), store.EventQuery{SessionID: r.sess.ID})
			if err != nil {
				t.Fatal(err)
			}
			answers := 0
			for _, e := range evs {
				switch x := e.Event.(type) {
				case store.AnswererAnswered:
					answers++
					if x.Layer != policy.LayerAnswerer || x.Kind != "command" || x.Answer != "allow" || x.Reason != "fine by corp" || x.LatencyMs < 0 {
						t.Fatalf("answer event %+v", x)
					}
				case store.GrantAdded, store.ApprovalPolicyChanged, store.SandboxPolicyChanged:
					t.Fatalf("an answerer's allow left %s behind", e.Kind)
				}
			}
			if answers != asked {
				t.Fatalf("%d answer events, want %d", answers, asked)
			}
		})
	}
}
