package gate

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// decodeCounter is an argument type that counts its decodes.
type decodeCounter struct{ Path string }

var gateDecodes atomic.Int32

func (c *decodeCounter) UnmarshalJSON(b []byte) error {
	gateDecodes.Add(1)
	var x struct{ Path string }
	err := json.Unmarshal(b, &x)
	c.Path = x.Path
	return err
}

// A call's arguments are decoded once — for scheduling, the decision, the
// re-check after the human's answer and the invoke — whether the caller
// prepares the call ahead (the runtime's turn) or calls it in one go.
func TestGateDecodesArgumentsOnce(t *testing.T) {
	tool := tools.NewTyped(tools.Spec[decodeCounter]{Name: "count", Description: "counts", Risk: policy.RiskLow,
		Effects: func(a decodeCounter, env tools.Env) ([]policy.Effect, error) {
			return []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{env.Workspace + "/" + a.Path}}}, nil
		},
		Invoke: func(_ context.Context, a decodeCounter, _ tools.Env) (tools.Result, error) {
			return tools.TextResult(a.Path), nil
		},
		Preview: func(a decodeCounter, _ tools.Env) (string, error) { return "writes " + a.Path, nil }})
	for _, ahead := range []bool{false, true} {
		name := "in one go"
		if ahead {
			name = "prepared ahead"
		}
		t.Run(name, func(t *testing.T) {
			env := testEnv(t)
			g, err := New(Config{Decider: &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{policy.ReasonPolicyAlways}, Signature: "count"}},
				Approver: &answer{a: Approval{Approved: true}},
				Session: func(context.Context, tools.Env) (policy.Session, error) {
					return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			gateDecodes.Store(0)
			req := Request{Tool: tool, Args: json.RawMessage(`{"Path":"f"}`), Env: env}
			var out Outcome
			if ahead {
				p, err := g.Prepare(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if p.ReadOnly() {
					t.Fatal("a write was scheduled as a read")
				}
				out, err = g.Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
			} else if out, err = g.Call(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if !out.Invoked || text(out.Result) != "f" {
				t.Fatalf("%+v", out)
			}
			if asked := g.cfg.Approver.(*answer).asked; len(asked) != 1 || asked[0].Preview != "writes f" {
				t.Fatalf("the human was asked %+v", asked)
			}
			if n := gateDecodes.Load(); n != 1 {
				t.Fatalf("the arguments were decoded %d times, want once", n)
			}
		})
	}
}

// Calls prepared together (one model turn) are decided on the world the
// calls before them left: a folder the first one makes is the second
// one's working directory, not an "invalid arguments".
func TestPreparedAheadSeesEarlierCalls(t *testing.T) {
	env := testEnv(t)
	g, err := New(Config{Decider: &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAllow, Source: "sandbox+policy"}},
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	sh := tools.NewShellExec(testCage(t))
	var preps []*Prepared
	for i, args := range []string{`{"command":"mkdir build"}`, `{"command":"pwd","cwd":"build"}`} {
		e := env
		e.CallID = "c" + string(rune('1'+i))
		p, err := g.Prepare(context.Background(), Request{Tool: sh, Args: json.RawMessage(args), Env: e})
		if err != nil {
			t.Fatal(err)
		}
		preps = append(preps, p)
	}
	if preps[1].Err == nil {
		t.Fatal("the folder exists before the first call ran: the test checks nothing")
	}
	for _, p := range preps {
		out, err := g.Run(context.Background(), p)
		if err != nil || !out.Invoked || out.Result.IsError {
			t.Fatalf("%+v %v", out, err)
		}
	}
}
