package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	askm "github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// lastAnswer returns the answer event recorded for a request.
func lastAnswer(r *rig, sessionID, requestID string) store.Event {
	var out store.Event
	for _, e := range r.events(sessionID, store.KindPermissionGranted, store.KindPermissionDenied) {
		switch ev := e.Event.(type) {
		case store.PermissionGranted:
			if ev.RequestID == requestID {
				out = ev
			}
		case store.PermissionDenied:
			if ev.RequestID == requestID {
				out = ev
			}
		}
	}
	return out
}

// TestBrokerAnswers drives asks raised by "!rm -rf build" (destructive:
// an ask under on-request) through every way an ask can end.
func TestBrokerAnswers(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// act resolves the pending ask; it may change axes or cancel.
		act func(t *testing.T, r *rig, s Session, a Approval)
		// want checks the recorded answer.
		want func(t *testing.T, ev store.Event)
		// gone is whether build/ was removed.
		gone bool
		// toModel must be in the result the model (or the transcript)
		// reads for the call; notModel must not.
		toModel, notModel string
	}{
		{
			name: "once runs it",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				must(t, r.svc.Answer(ctx, AnswerArgs{RequestID: a.RequestID, Answer: AnswerOnce}))
			},
			want: wantGranted("human:once"), gone: true,
		},
		{
			name: "deny carries the note to the model",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				must(t, r.svc.Answer(ctx, AnswerArgs{RequestID: a.RequestID, Answer: AnswerDeny, Note: "not today"}))
			},
			want:    wantDenied(policy.ReasonUserDenied, store.DeniedByUser, "not today"),
			toModel: "denied (user-denied): a human denied the call: not today",
		},
		{
			name: "cancel denies the pending ask",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				must(t, r.svc.Cancel(ctx, s.ID))
			},
			want:    wantDenied(policy.ReasonUserDenied, store.DeniedByUser, "cancelled"),
			toModel: "denied (user-denied): the turn was cancelled",
		},
		{
			name: "switch to read-only re-decides into a sandbox denial",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				_, err := r.svc.SetSandboxPolicy(ctx, s.ID, Sandbox{Kind: policy.ReadOnly})
				must(t, err)
			},
			want:    wantDenied(policy.ReasonSandboxRejected, store.DeniedBySandbox, ""),
			toModel: "denied (sandbox-rejected): re-decided after a policy change", notModel: "user-denied",
		},
		{
			name: "the re-decided sandbox denial tells the model its remedy",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				_, err := r.svc.SetSandboxPolicy(ctx, s.ID, Sandbox{Kind: policy.ReadOnly})
				must(t, err)
			},
			want:    wantDenied(policy.ReasonSandboxRejected, store.DeniedBySandbox, ""),
			toModel: "Remedy: switch the sandbox", notModel: "user-denied",
		},
		{
			name: "switch to planning re-decides into a freeze denial",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				_, err := r.svc.SetPlanning(ctx, s.ID, true)
				must(t, err)
			},
			want:    wantDenied(policy.ReasonPlanningFreeze, store.DeniedByFreeze, ""),
			toModel: "denied (planning-freeze)", notModel: "user-denied",
		},
		{
			name: "switch to never re-decides into an allow",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				_, err := r.svc.SetApprovalPolicy(ctx, s.ID, policy.Never)
				must(t, err)
			},
			want: wantGranted("sandbox+policy"), gone: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, nil, nil)
			s := r.session(nil)
			must(t, r.svc.SendMessage(ctx, s.ID, "!rm -rf build"))
			a := r.waitPending(s.ID, 1)[0]
			c.act(t, r, s, a)
			r.waitIdle(s.ID)
			c.want(t, lastAnswer(r, s.ID, a.RequestID))
			_, err := os.Stat(filepath.Join(r.ws, "build"))
			if gone := errors.Is(err, os.ErrNotExist); gone != c.gone {
				t.Errorf("build removed = %v, want %v", gone, c.gone)
			}
			if ps, _ := r.svc.PendingApprovals(ctx, s.ID); len(ps) != 0 {
				t.Errorf("still pending: %+v", ps)
			}
			if c.toModel != "" {
				var got string
				for _, e := range r.events(s.ID, store.KindMessageAppended) {
					if m := e.Event.(store.MessageAppended); m.Role == "tool" && m.ToolCallID == a.CallID {
						got = m.Text
					}
				}
				if !strings.Contains(got, c.toModel) || (c.notModel != "" && strings.Contains(got, c.notModel)) {
					t.Errorf("the call's result reads %q, want %q and not %q", got, c.toModel, c.notModel)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantGranted(source string) func(*testing.T, store.Event) {
	return func(t *testing.T, ev store.Event) {
		t.Helper()
		g, ok := ev.(store.PermissionGranted)
		if !ok || g.Source != source {
			t.Fatalf("answer %#v, want granted by %s", ev, source)
		}
	}
}

func wantDenied(reason policy.Reason, by store.DeniedBy, detail string) func(*testing.T, store.Event) {
	return func(t *testing.T, ev store.Event) {
		t.Helper()
		d, ok := ev.(store.PermissionDenied)
		if !ok || d.Reason != reason || d.By != by || !strings.Contains(d.Detail, detail) {
			t.Fatalf("answer %#v, want denied %s by %s with %q", ev, reason, by, detail)
		}
	}
}

func TestBrokerRefusals(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, nil, nil)
	s := r.session(nil)
	must(t, r.svc.SendMessage(ctx, s.ID, "!rm -rf build"))
	a := r.waitPending(s.ID, 1)[0]
	cases := []struct {
		name    string
		args    AnswerArgs
		unknown bool // refused with ErrUnknownRequest
	}{
		{name: "unknown id", args: AnswerArgs{RequestID: "no-such-request", Answer: AnswerOnce}, unknown: true},
		{name: "empty id", args: AnswerArgs{Answer: AnswerOnce}},
		{name: "bad answer", args: AnswerArgs{RequestID: a.RequestID, Answer: "maybe"}},
		{name: "bad scope", args: AnswerArgs{RequestID: a.RequestID, Answer: AnswerAlways, Scope: "galaxy"}},
		{name: "negative expiry", args: AnswerArgs{RequestID: a.RequestID, Answer: AnswerAlways, ExpiresInSec: -1}},
		{name: "trust on a non-MCP call", args: AnswerArgs{RequestID: a.RequestID, Answer: AnswerOnce, TrustServer: "session"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := r.svc.Answer(ctx, c.args)
			if err == nil {
				t.Fatal("accepted")
			}
			if errors.Is(err, ErrUnknownRequest) != c.unknown {
				t.Fatalf("err %v: unknown-request = %v, want %v", err, !c.unknown, c.unknown)
			}
		})
	}
	// None of those touched the ask; a workspace rule with expiry does.
	must(t, r.svc.Answer(ctx, AnswerArgs{RequestID: a.RequestID, Answer: AnswerAlways, Scope: policy.ScopeWorkspace, ExpiresInSec: 3600}))
	must(t, r.svc.Answer(ctx, AnswerArgs{RequestID: a.RequestID, Answer: AnswerAlways, Scope: policy.ScopeWorkspace, ExpiresInSec: 3600}))
	r.waitIdle(s.ID)
	var re *RequestError
	if err := r.svc.Answer(ctx, AnswerArgs{RequestID: a.RequestID, Answer: AnswerDeny}); !errors.As(err, &re) {
		t.Fatalf("a different answer after the first: %v", err)
	}
	// The rule covers a second session of the same workspace.
	s2 := r.session(nil)
	must(t, os.MkdirAll(filepath.Join(r.ws, "build"), 0o755))
	must(t, r.svc.Run(ctx, s2.ID, "!rm -rf build"))
	var src string
	for _, e := range r.events(s2.ID, store.KindPermissionGranted) {
		src = e.Event.(store.PermissionGranted).Source
	}
	if src != "workspace-rule:shell=rm -rf build" {
		t.Fatalf("second session source %q", src)
	}
	gs, err := r.svc.ListGrants(ctx, s2.ID)
	must(t, err)
	if len(gs) != 1 || gs[0].Kind != "rule" || gs[0].ExpiresAt == 0 || gs[0].Uses != 1 {
		t.Fatalf("grants: %+v", gs)
	}
	must(t, r.svc.RevokeGrant(ctx, RevokeGrantArgs{ID: gs[0].ID, Kind: "grant"}))
	if gs, _ := r.svc.ListGrants(ctx, s2.ID); len(gs) != 0 {
		t.Fatalf("after revoke: %+v", gs)
	}
}

func TestHeadless(t *testing.T) {
	cases := []struct {
		name    string
		timeout time.Duration
	}{
		{name: "no timeout denies at once"},
		{name: "a timeout waits, then denies", timeout: 50 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, nil, func(cfg *rigConfig) { cfg.Headless, cfg.ApprovalTimeout = true, c.timeout })
			s := r.session(nil)
			must(t, r.svc.Run(context.Background(), s.ID, "!rm -rf build"))
			evs := r.events(s.ID, store.KindPermissionRequested, store.KindPermissionDenied)
			if len(evs) != 2 {
				t.Fatalf("events: %d", len(evs))
			}
			d := evs[1].Event.(store.PermissionDenied)
			if d.Reason != policy.ReasonNoApprover || d.By != store.DeniedByNoApprover {
				t.Fatalf("denial %+v", d)
			}
			if _, err := os.Stat(filepath.Join(r.ws, "build")); err != nil {
				t.Fatal("build was removed without an answer")
			}
		})
	}
}

func TestApprovalTimeoutWithAHumanAttached(t *testing.T) {
	r := newRig(t, nil, func(cfg *rigConfig) { cfg.ApprovalTimeout = 50 * time.Millisecond })
	s := r.session(nil)
	must(t, r.svc.Run(context.Background(), s.ID, "!rm -rf build"))
	evs := r.events(s.ID, store.KindPermissionDenied)
	if len(evs) != 1 || evs[0].Event.(store.PermissionDenied).Reason != policy.ReasonNoApprover {
		t.Fatalf("events: %+v", evs)
	}
}

// TestRacingAnswersToALiveAsk: many answers of every kind race for one
// waiting ask (with a cancel among them). The ask machine takes exactly
// one; the same answer again is a no-op, any other is refused; one answer
// is recorded and the windows are told once.
func TestRacingAnswersToALiveAsk(t *testing.T) {
	ctx := context.Background()
	for round := range 5 {
		t.Run(fmt.Sprintf("round-%d", round), func(t *testing.T) {
			r := newRig(t, nil, nil)
			s := r.session(nil)
			pushes := r.svc.Subscribe(ctx)
			must(t, r.svc.SendMessage(ctx, s.ID, "!rm -rf build"))
			a := r.waitPending(s.ID, 1)[0]
			kinds := []string{AnswerOnce, AnswerAlways, AnswerDeny}
			var wg sync.WaitGroup
			errs := make([]error, 21)
			for i := range errs {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					if i == 20 {
						errs[i] = r.svc.Cancel(ctx, s.ID)
						return
					}
					errs[i] = r.svc.Answer(ctx, AnswerArgs{RequestID: a.RequestID, Answer: kinds[i%3]})
				}(i)
			}
			wg.Wait()
			r.waitIdle(s.ID)
			answers := r.events(s.ID, store.KindPermissionGranted, store.KindPermissionDenied)
			if len(answers) != 1 {
				t.Fatalf("%d answers recorded, want 1", len(answers))
			}
			got, ok := r.svc.gate.Asks().Find(a.RequestID)
			if !ok {
				t.Fatal("the machine does not know the ask")
			}
			for i, err := range errs[:20] {
				same := answerOf[kinds[i%3]] == got.Answer()
				var re *RequestError
				if same && err != nil || !same && !errors.As(err, &re) {
					t.Errorf("answer %s after %s won: %v", kinds[i%3], got.Answer(), err)
				}
			}
			// The resolution is pushed once.
			resolved := 0
			deadline := time.After(time.Second)
		drain:
			for {
				select {
				case p := <-pushes:
					if p.Type == PushApprovalResolved && p.RequestID == a.RequestID {
						resolved++
					}
				case <-deadline:
					break drain
				}
			}
			if resolved != 1 {
				t.Fatalf("resolved pushed %d times", resolved)
			}
		})
	}
}

// TestShutdownWithAPendingAsk: closing the service while an ask waits.
// With a human attached the ask stays requested, in the log and in the
// machine, and the next start shows it again; headless, nobody was ever
// going to answer, so its time-out denial is recorded before the process
// ends and the model's transcript reads it.
func TestShutdownWithAPendingAsk(t *testing.T) {
	cases := []struct {
		name     string
		headless bool
	}{
		{name: "a human attached: the ask stays pending"},
		{name: "headless: the time-out is recorded", headless: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r := newRig(t, nil, func(c *rigConfig) { c.Headless, c.ApprovalTimeout = tc.headless, time.Hour })
			s := r.session(nil)
			must(t, r.svc.SendMessage(ctx, s.ID, "!rm -rf build"))
			a := r.waitPending(s.ID, 1)[0]
			old := r.svc
			r.close()
			if got, _ := old.gate.Asks().Get(s.ID, a.RequestID); got.State != askm.Requested && !tc.headless || got.State != askm.Denied && tc.headless {
				t.Fatalf("the machine holds the ask %s", got.State)
			}
			r.open()
			if _, err := os.Stat(filepath.Join(r.ws, "build")); err != nil {
				t.Fatal("build was removed without an answer")
			}
			denials := r.events(s.ID, store.KindPermissionDenied)
			ps, err := r.svc.PendingApprovals(ctx, s.ID)
			must(t, err)
			if !tc.headless {
				if len(denials) != 0 || len(ps) != 1 || ps[0].RequestID != a.RequestID {
					t.Fatalf("after the restart: %d denials, pending %+v", len(denials), ps)
				}
				return
			}
			if len(denials) != 1 || len(ps) != 0 {
				t.Fatalf("after the restart: %d denials, %d pending", len(denials), len(ps))
			}
			d := denials[0].Event.(store.PermissionDenied)
			if d.Via != string(askm.TimeOut) || d.By != store.DeniedByNoApprover || d.RequestID != a.RequestID || !strings.Contains(d.Detail, "shut down") {
				t.Fatalf("denial %+v", d)
			}
			var result string
			for _, e := range r.events(s.ID, store.KindMessageAppended) {
				if m := e.Event.(store.MessageAppended); m.Role == "tool" && m.ToolCallID == a.CallID {
					result = m.Text
				}
			}
			if !strings.Contains(result, "denied (no-approver)") {
				t.Fatalf("the call's result reads %q", result)
			}
		})
	}
}

// TestRedecidedSandboxDenialReachesTheModel: a model's call waits for a
// human, the human switches the sandbox to read-only, and the model's next
// request (over both wire protocols) reads what decided — the sandbox —
// with its remedy, never a human's denial.
func TestRedecidedSandboxDenialReachesTheModel(t *testing.T) {
	for _, protocol := range []string{"anthropic", "openai"} {
		t.Run(protocol, func(t *testing.T) {
			ctx := context.Background()
			sc := wireScript(t, `[
				{"tool_calls": [{"id": "call_rm", "name": "shell.exec", "args": {"command": "rm -rf build"}}]},
				{"text": "I will not remove it."}]`)
			prov, srv := wireProvider(t, protocol, "", sc)
			r := newRig(t, prov, nil)
			s := r.session(nil)
			must(t, r.svc.SendMessage(ctx, s.ID, "clean the build"))
			r.waitPending(s.ID, 1)
			_, err := r.svc.SetSandboxPolicy(ctx, s.ID, Sandbox{Kind: policy.ReadOnly})
			must(t, err)
			r.waitIdle(s.ID)
			bodies := srv.Bodies()
			if len(bodies) != 2 {
				t.Fatalf("%d model requests", len(bodies))
			}
			next := string(bodies[1])
			for _, want := range []string{"denied (sandbox-rejected)", "re-decided after a policy change", "Remedy: switch the sandbox"} {
				if !strings.Contains(next, want) {
					t.Errorf("the model's next request does not read %q:\n%s", want, next)
				}
			}
			if strings.Contains(next, "user-denied") {
				t.Errorf("the model reads a human's denial:\n%s", next)
			}
			if _, err := os.Stat(filepath.Join(r.ws, "build")); err != nil {
				t.Fatal("build was removed")
			}
		})
	}
}

// answerOf is the ask transition a human's answer is (the gate's table).
var answerOf = map[string]askm.Transition{AnswerOnce: askm.AnswerOnce, AnswerAlways: askm.AnswerAlways, AnswerDeny: askm.AnswerDeny}
