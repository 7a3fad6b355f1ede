package gate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// fixedDecider answers every call with one decision: the gate tests are
// about what the gate does with each verdict, not about the chain.
type fixedDecider struct {
	d    policy.Decision
	seen []policy.Call
	sess []policy.Session
}

func (f *fixedDecider) Decide(c policy.Call, s policy.Session) policy.Decision {
	f.seen = append(f.seen, c)
	f.sess = append(f.sess, s)
	return f.d
}

// journal keeps the recorded store events in memory, each read back as a
// rec for the assertions.
type journal struct {
	mu   sync.Mutex
	evs  []rec
	fail error
}

// rec is what the tests look at in a recorded event.
type rec struct {
	Type      string // the store event's Go type name: PermissionRequested, ...
	CallID    string
	RequestID string
	Tool      string
	Direct    bool
	Conn      *store.NetworkConnection
}

// The recorded types the assertions name.
const (
	EventPermissionRequested = "PermissionRequested"
	EventNetworkConnection   = "NetworkConnection"
)

func (j *journal) Append(_ context.Context, _ string, _ int64, evs ...store.Event) (int64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return 0, j.fail
	}
	for _, e := range evs {
		r := rec{Type: reflect.TypeOf(e).Name()}
		switch x := e.(type) {
		case store.PermissionRequested:
			r.CallID, r.RequestID, r.Tool, r.Direct = x.CallID, x.RequestID, x.Tool, x.Direct
		case store.PermissionGranted:
			r.CallID, r.RequestID, r.Tool = x.CallID, x.RequestID, x.Tool
		case store.PermissionDenied:
			r.CallID, r.RequestID, r.Tool = x.CallID, x.RequestID, x.Tool
		case store.ToolInvocationStarted:
			r.CallID, r.RequestID, r.Tool = x.CallID, x.RequestID, x.Tool
		case store.ToolInvocationCompleted:
			r.CallID, r.RequestID, r.Tool = x.CallID, x.RequestID, x.Tool
		case store.ToolInvocationFailed:
			r.CallID, r.RequestID, r.Tool = x.CallID, x.RequestID, x.Tool
		case store.NetworkConnection:
			r.CallID, r.Tool, r.Conn = x.CallID, policy.NetworkSignature(x.Host, x.Port), &x
		}
		j.evs = append(j.evs, r)
	}
	return int64(len(j.evs)), nil
}

func (j *journal) types() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var s []string
	for _, e := range j.evs {
		s = append(s, e.Type)
	}
	return strings.Join(s, ",")
}

// answer is a human who always gives the same answer, or never answers.
type answer struct {
	a     Approval
	never bool
	asked []ApprovalRequest
	mu    sync.Mutex
}

func (a *answer) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if a.never {
		<-ctx.Done()
		return Approval{}, ctx.Err()
	}
	return a.a, nil
}

func TestGate(t *testing.T) {
	allow := policy.Decision{Verdict: policy.VerdictAllow, Source: "sandbox+policy", Signature: "fs.write"}
	ask := policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{policy.ReasonProtectedPath}, Signature: "fs.write"}
	deny := policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonSandboxRejected, Detail: "outside the workspace", Remedy: "switch the sandbox", Signature: "fs.write"}
	askProtected := ask
	askProtected.AlwaysRefused = "a protected path is approved one write at a time"
	tests := []struct {
		name     string
		decision policy.Decision
		approver *answer
		timeout  time.Duration
		verdict  policy.Verdict
		source   string
		reason   policy.Reason
		events   string
		written  bool
	}{
		{"allow runs", allow, nil, 0, policy.VerdictAllow, "sandbox+policy", "",
			"PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted", true},
		{"deny never runs", deny, nil, 0, policy.VerdictDeny, "", policy.ReasonSandboxRejected, "PermissionDenied", false},
		{"ask approved once", ask, &answer{a: Approval{Approved: true}}, 0, policy.VerdictAllow, "human:once", "",
			"PermissionRequested,PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted", true},
		{"ask approved always", ask, &answer{a: Approval{Approved: true, Always: true}}, 0, policy.VerdictAllow, "human:always", "",
			"PermissionRequested,PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted", true},
		{"always on a protected path counts once", askProtected, &answer{a: Approval{Approved: true, Always: true}}, 0, policy.VerdictAllow, "human:once", "",
			"PermissionRequested,PermissionGranted,ToolInvocationStarted,ToolInvocationCompleted", true},
		{"ask denied by the human", ask, &answer{a: Approval{Note: "not now"}}, 0, policy.VerdictDeny, "", policy.ReasonUserDenied,
			"PermissionRequested,PermissionDenied", false},
		{"ask with nobody attached", ask, nil, 0, policy.VerdictDeny, "", policy.ReasonNoApprover,
			"PermissionRequested,PermissionDenied", false},
		{"ask with nobody attached waits the timeout", ask, nil, 50 * time.Millisecond, policy.VerdictDeny, "", policy.ReasonNoApprover,
			"PermissionRequested,PermissionDenied", false},
		{"ask that is never answered times out", ask, &answer{never: true}, 50 * time.Millisecond, policy.VerdictDeny, "", policy.ReasonNoApprover,
			"PermissionRequested,PermissionDenied", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			writeFile(t, filepath.Join(env.Workspace, "f.txt"), "old\n")
			dec := &fixedDecider{d: tc.decision}
			j := &journal{}
			cfg := Config{Decider: dec, Journal: j, ApprovalTimeout: tc.timeout,
				Session: func(context.Context, tools.Env) (policy.Session, error) {
					return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
				}}
			if tc.approver != nil {
				cfg.Approver = tc.approver
			}
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out, err := callGate(g, context.Background(), tools.NewFsWrite(), json.RawMessage(`{"path":"f.txt","content":"new\n"}`), env)
			if err != nil {
				t.Fatal(err)
			}
			if waited := time.Since(start); waited < tc.timeout {
				t.Fatalf("returned after %v, before the approval timeout", waited)
			}
			d := out.Decision
			if d == nil || d.Verdict != tc.verdict || d.Source != tc.source || d.Reason != tc.reason {
				t.Fatalf("decision %+v", d)
			}
			if got := j.types(); got != tc.events {
				t.Fatalf("events %s, want %s", got, tc.events)
			}
			for _, e := range j.evs {
				if e.CallID != out.CallID || e.RequestID == "" || e.RequestID != j.evs[0].RequestID {
					t.Fatalf("event %s has call %q request %q; want call %q and one request id", e.Type, e.CallID, e.RequestID, out.CallID)
				}
			}
			if written := readFile(t, filepath.Join(env.Workspace, "f.txt")) == "new\n"; written != tc.written || out.Invoked != tc.written {
				t.Fatalf("written=%v invoked=%v, want %v", written, out.Invoked, tc.written)
			}
			if !tc.written && (!out.Result.IsError || !strings.Contains(text(out.Result), "denied ("+string(tc.reason)+")")) {
				t.Fatalf("the model must read the refusal: %s", text(out.Result))
			}
			if len(dec.seen) != 1 || dec.seen[0].Tool != "fs.write" || dec.seen[0].Effects[0].Paths[0] != filepath.Join(env.Workspace, "f.txt") {
				t.Fatalf("the engine saw %+v", dec.seen)
			}
			if dec.sess[0].Now.IsZero() {
				t.Fatal("the session reached the engine without a time")
			}
			if tc.approver != nil && len(tc.approver.asked) == 1 {
				req := tc.approver.asked[0]
				if req.Signature != "fs.write" || !strings.Contains(req.Preview, "-old\n+new\n") || req.Risk != policy.RiskMedium {
					t.Fatalf("approval request %+v", req)
				}
			}
			if d.Verdict != policy.VerdictAllow && tc.decision.Verdict == policy.VerdictAsk {
				if last := d.Trace[len(d.Trace)-1]; last.Step != "approval" {
					t.Fatalf("trace does not say how the ask ended: %+v", d.Trace)
				}
			}
		})
	}
}

func TestGateRefusesBadArgumentsBeforeDeciding(t *testing.T) {
	dec := &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAllow}}
	g, _ := New(Config{Decider: dec, Session: func(_ context.Context, e tools.Env) (policy.Session, error) {
		return policy.Session{Workspace: e.Workspace}, nil
	}})
	out, err := callGate(g, context.Background(), tools.NewFsWrite(), json.RawMessage(`{"path":1}`), testEnv(t))
	if err != nil || out.Decision != nil || out.Invoked || !out.Result.IsError || !strings.Contains(text(out.Result), "invalid arguments") {
		t.Fatalf("%+v %v", out, err)
	}
	if len(dec.seen) != 0 {
		t.Fatal("the engine was asked about unusable arguments")
	}
}

func TestGateFailsClosedWhenTheJournalFails(t *testing.T) {
	env := testEnv(t)
	g, _ := New(Config{
		Decider: &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAllow}},
		Journal: &journal{fail: errors.New("disk full")},
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: env.Workspace}, nil
		},
	})
	out, err := callGate(g, context.Background(), tools.NewFsWrite(), json.RawMessage(`{"path":"f","content":"x"}`), env)
	if err == nil || out.Invoked || exists(filepath.Join(env.Workspace, "f")) {
		t.Fatalf("ran without a record: %+v %v", out, err)
	}
}

func TestGateEnforcesTheSessionsSandbox(t *testing.T) {
	// The Env claims full access; the session says read-only. The cage must
	// follow the session, which is what the engine decided on.
	env := testEnv(t)
	env.Sandbox = policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	g, _ := New(Config{
		Decider: &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAllow}},
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: env.Workspace, Sandbox: policy.SandboxPolicy{Kind: policy.ReadOnly}, Caged: true}, nil
		},
	})
	sh := tools.NewShellExec(testCage(t))
	if _, err := callGate(g, context.Background(), sh, json.RawMessage(`{"command":"touch made"}`), env); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(env.Workspace, "made")) {
		t.Fatal("the wrapped tool ran with the Env's sandbox instead of the session's")
	}
}

// swapper is an approver that moves a symlink while the human "thinks".
type swapper struct{ link, to string }

func (s swapper) Approve(context.Context, ApprovalRequest) (Approval, error) {
	_ = os.Remove(s.link)
	_ = os.Symlink(s.to, s.link)
	return Approval{Approved: true}, nil
}

func TestGateRechecksPathsAfterApproval(t *testing.T) {
	env := testEnv(t)
	inside := filepath.Join(env.Workspace, "inside")
	outside := workspace(t)
	if err := os.Mkdir(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(env.Workspace, "dir")
	if err := os.Symlink(inside, link); err != nil {
		t.Fatal(err)
	}
	j := &journal{}
	g, _ := New(Config{
		Decider:  &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{policy.ReasonPolicyAlways}}},
		Approver: swapper{link: link, to: outside},
		Journal:  j,
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: env.Workspace}, nil
		},
	})
	out, err := callGate(g, context.Background(), tools.NewFsWrite(), json.RawMessage(`{"path":"dir/f","content":"x"}`), env)
	if err != nil {
		t.Fatal(err)
	}
	if out.Invoked || exists(filepath.Join(outside, "f")) || !strings.Contains(text(out.Result), "resolve differently") {
		t.Fatalf("ran after the symlink moved: %+v", out)
	}
	if j.types() != "PermissionRequested,PermissionGranted,ToolInvocationFailed" {
		t.Fatalf("events %s", j.types())
	}
}

func TestDeniedBy(t *testing.T) {
	tests := []struct {
		reason policy.Reason
		want   store.DeniedBy
	}{
		{policy.ReasonSandboxRejected, store.DeniedBySandbox},
		{policy.ReasonPlanningFreeze, store.DeniedByFreeze},
		{policy.ReasonUserDenied, store.DeniedByUser},
		{policy.ReasonNoApprover, store.DeniedByNoApprover},
		{policy.ReasonProtectedPath, store.DeniedByNoApprover},
	}
	for _, tc := range tests {
		t.Run(string(tc.reason), func(t *testing.T) {
			if got := deniedBy(tc.reason); got != tc.want {
				t.Fatalf("deniedBy(%s) = %s, want %s", tc.reason, got, tc.want)
			}
		})
	}
}
