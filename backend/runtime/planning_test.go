package runtime

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

func TestPlanToggleFreezesWrites(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, nil, nil)
	s := r.session(nil)
	must(t, r.svc.SendMessage(ctx, s.ID, "/plan"))
	if got, _ := r.svc.GetSession(ctx, s.ID); !got.Planning {
		t.Fatal("/plan did not enter the freeze")
	}
	must(t, r.svc.Run(ctx, s.ID, "!touch frozen.txt"))
	if _, err := os.Stat(filepath.Join(r.ws, "frozen.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a write ran during the freeze")
	}
	d := r.events(s.ID, store.KindPermissionDenied)
	if len(d) != 1 || d[0].Event.(store.PermissionDenied).By != store.DeniedByFreeze {
		t.Fatalf("denials: %+v", d)
	}
	must(t, r.svc.SendMessage(ctx, s.ID, "/plan"))
	if got, _ := r.svc.GetSession(ctx, s.ID); got.Planning {
		t.Fatal("/plan did not leave the freeze")
	}
	kinds := map[store.Kind]bool{}
	for _, e := range r.events(s.ID) {
		kinds[e.Kind] = true
	}
	if !kinds[store.KindPlanningEntered] || !kinds[store.KindPlanningExited] {
		t.Fatalf("freeze changes are not events: %v", kinds)
	}
}

// TestWritePlanPresentPlan: write_plan enters the freeze, a write is
// refused, present_plan asks the human, approval lifts the freeze.
func TestWritePlanPresentPlan(t *testing.T) {
	ctx := context.Background()
	srv := newSSEServer(t, "p1_write_plan.sse", "p2_try_write.sse", "p3_present.sse", "p4_write.sse", "p5_done.sse")
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	s := r.session(nil)
	must(t, r.svc.SendMessage(ctx, s.ID, "plan, then write notes"))
	a := r.waitPending(s.ID, 1)[0]
	if a.Tool != "present_plan" || !strings.Contains(string(a.Args), "write notes.txt") {
		t.Fatalf("ask: %+v", a)
	}
	if got, _ := r.svc.GetSession(ctx, s.ID); !got.Planning {
		t.Fatal("write_plan did not enter the freeze")
	}
	must(t, r.svc.Answer(ctx, AnswerArgs{RequestID: a.RequestID, Answer: AnswerOnce}))
	r.waitIdle(s.ID)
	if _, err := os.Stat(filepath.Join(r.ws, "early.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a write ran before the plan was approved")
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "notes.txt")); string(b) != "planned\n" {
		t.Fatalf("notes.txt = %q", b)
	}
	st := stories(r.events(s.ID))
	if d := st["toolu_early"].denied; d == nil || d.Reason != policy.ReasonPlanningFreeze {
		t.Fatalf("early write: %+v", st["toolu_early"])
	}
	if g := st["toolu_pp"].granted; g == nil {
		t.Fatal("present_plan was not granted")
	}
	if got, _ := r.svc.GetSession(ctx, s.ID); got.Planning {
		t.Fatal("approval did not lift the freeze")
	}
	if len(r.events(s.ID, store.KindPlanPresented)) != 1 {
		t.Fatal("no PlanPresented")
	}
}

func TestResumeMidPlanLandsInAlways(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, nil, nil)
	s := r.session(nil)
	_, err := r.svc.SetPlanning(ctx, s.ID, true)
	must(t, err)
	r.close()
	r.open()
	got, err := r.svc.GetSession(ctx, s.ID)
	must(t, err)
	if got.Approval != policy.Always || !got.Planning {
		t.Fatalf("resumed: %+v", got)
	}
	var by string
	for _, e := range r.events(s.ID, store.KindApprovalPolicyChanged) {
		by = e.Event.(store.ApprovalPolicyChanged).By
	}
	if by != "resume" {
		t.Fatalf("change by %q", by)
	}
}

func TestTaskForeground(t *testing.T) {
	ctx := context.Background()
	srv := newSSEServer(t, "t1_task.sse", "t2_child.sse", "t3_done.sse")
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	s := r.session(nil)
	must(t, r.svc.Run(ctx, s.ID, "survey the workspace"))
	started := r.events(s.ID, store.KindSubagentStarted)
	finished := r.events(s.ID, store.KindSubagentFinished)
	if len(started) != 1 || len(finished) != 1 {
		t.Fatalf("subagent events: %d started, %d finished", len(started), len(finished))
	}
	kid := started[0].Event.(store.SubagentStarted).SubagentID
	if f := finished[0].Event.(store.SubagentFinished); f.Result != "The workspace holds README.md and build/." || f.Error != "" {
		t.Fatalf("finished: %+v", f)
	}
	ks, err := r.st.Session(ctx, kid)
	must(t, err)
	if ks.ParentID != s.ID {
		t.Fatalf("child parent %q", ks.ParentID)
	}
	if len(r.events(kid, store.KindMessageAppended)) != 2 {
		t.Fatal("the child's conversation is not in its session")
	}
	// The parent model read the child's answer as the task's result.
	if !bytes.Contains(srv.bodies[2], []byte("README.md and build/")) {
		t.Fatal("the parent did not get the result")
	}
	// Subagent sessions are not listed as top-level sessions.
	list, err := r.svc.ListSessions(ctx)
	must(t, err)
	if len(list) != 1 {
		t.Fatalf("listed %d sessions", len(list))
	}
	// Deleting the parent removes the child.
	must(t, r.svc.DeleteSession(ctx, s.ID))
	if _, err := r.st.Session(ctx, kid); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("child after delete: %v", err)
	}
}

// TestKillAgent stops a background subagent parked on an ask without
// touching its parent; the child inherits the parent's axes, so a switch
// to read-only on the parent reaches the child too.
func TestKillAgent(t *testing.T) {
	ctx := context.Background()
	route := func(body []byte) string {
		switch {
		case bytes.Contains(body, []byte("CHILD-TASK")) && !bytes.Contains(body, []byte("toolu_bg")):
			return "r1_rm.sse"
		case bytes.Contains(body, []byte("toolu_bg")):
			return "t3_done.sse"
		}
		return "k1_bg.sse"
	}
	srv := newRoutedSSE(t, route)
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	s := r.session(nil)
	must(t, r.svc.Run(ctx, s.ID, "start a helper"))
	started := r.events(s.ID, store.KindSubagentStarted)
	if len(started) != 1 {
		t.Fatal("no subagent")
	}
	kid := started[0].Event.(store.SubagentStarted).SubagentID
	a := r.waitPending(kid, 1)[0]
	if err := r.svc.KillAgent(ctx, s.ID, "nobody"); err == nil {
		t.Fatal("killed an unknown agent")
	}
	must(t, r.svc.KillAgent(ctx, s.ID, kid))
	deadline := time.Now().Add(20 * time.Second)
	for len(r.events(s.ID, store.KindSubagentFinished)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the subagent did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantDenied(policy.ReasonUserDenied, store.DeniedByUser, "stopped")(t, lastAnswer(r, kid, a.RequestID))
	if _, err := os.Stat(filepath.Join(r.ws, "build")); err != nil {
		t.Fatal("the killed subagent's command ran")
	}
	if got, _ := r.svc.GetSession(ctx, s.ID); got.Busy {
		t.Fatal("the parent is still busy")
	}
}

// TestReadsOfOneTurnRunTogether: two reads in one model turn both run and
// their results go back in the order the model asked.
func TestReadsOfOneTurnRunTogether(t *testing.T) {
	ctx := context.Background()
	srv := newSSEServer(t, "c1_read2.sse", "t3_done.sse")
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	s := r.session(nil)
	must(t, r.svc.Run(ctx, s.ID, "look around"))
	st := stories(r.events(s.ID))
	for _, id := range []string{"toolu_ra", "toolu_rb"} {
		if st[id] == nil || st[id].completed == nil || st[id].granted.Source != "sandbox+policy" {
			t.Fatalf("%s: %+v", id, st[id])
		}
	}
	hist, err := r.svc.history(ctx, s.ID)
	must(t, err)
	var order []string
	for _, m := range hist {
		for _, res := range m.Results {
			order = append(order, res.CallID)
		}
	}
	if strings.Join(order, ",") != "toolu_ra,toolu_rb" {
		t.Fatalf("result order %v", order)
	}
}

// TestPresentPlanAsksThroughTheGate: present_plan's question takes the
// gate's ask path — one Requested and one answer under its own request id,
// a refusal's note reaching the model, an axis change leaving it parked
// (only a human approves a plan), no human meaning no approval.
func TestPresentPlanAsksThroughTheGate(t *testing.T) {
	cases := []struct {
		name     string
		headless bool
		act      func(t *testing.T, r *rig, s Session, a Approval)
		want     func(*testing.T, store.Event)
		toModel  string
		planning bool
	}{
		{name: "a refusal's note reaches the model and the freeze stays",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				must(t, r.svc.Answer(context.Background(), AnswerArgs{RequestID: a.RequestID, Answer: AnswerDeny, Note: "split step 2"}))
			},
			want: wantDenied(policy.ReasonUserDenied, store.DeniedByUser, "split step 2"), toModel: "split step 2", planning: true},
		{name: "an axis change does not re-decide a plan",
			act: func(t *testing.T, r *rig, s Session, a Approval) {
				_, err := r.svc.SetApprovalPolicy(context.Background(), s.ID, policy.Never)
				must(t, err)
				time.Sleep(100 * time.Millisecond)
				if ps, _ := r.svc.PendingApprovals(context.Background(), s.ID); len(ps) != 1 {
					t.Fatalf("the plan ask was resolved by an axis change: %+v", ps)
				}
				must(t, r.svc.Answer(context.Background(), AnswerArgs{RequestID: a.RequestID, Answer: AnswerOnce}))
			},
			want: wantGranted("human:once"), toModel: "approved the plan", planning: false},
		{name: "headless: nobody approves", headless: true,
			want: wantDenied(policy.ReasonNoApprover, store.DeniedByNoApprover, "no human"), toModel: "did not approve", planning: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			srv := newSSEServer(t, "p1_write_plan.sse", "p2_try_write.sse", "p3_present.sse", "p4_write.sse", "p5_done.sse")
			r := newRig(t, anthropicProvider(t, srv.URL), func(c *rigConfig) { c.Headless = tc.headless })
			s := r.session(nil)
			must(t, r.svc.SendMessage(ctx, s.ID, "plan, then write notes"))
			if tc.act != nil {
				tc.act(t, r, s, r.waitPending(s.ID, 1)[0])
			}
			r.waitIdle(s.ID)
			var req *store.PermissionRequested
			for _, e := range r.events(s.ID, store.KindPermissionRequested) {
				if pr := e.Event.(store.PermissionRequested); pr.Tool == "present_plan" {
					if req != nil {
						t.Fatal("present_plan asked twice")
					}
					req = &pr
				}
			}
			if req == nil || req.CallID != "toolu_pp" || req.Signature != "present_plan" {
				t.Fatalf("plan ask %+v", req)
			}
			tc.want(t, lastAnswer(r, s.ID, req.RequestID))
			var got string
			for _, e := range r.events(s.ID, store.KindMessageAppended) {
				if m := e.Event.(store.MessageAppended); m.Role == "tool" && m.ToolCallID == "toolu_pp" {
					got = m.Text
				}
			}
			if !strings.Contains(got, tc.toModel) {
				t.Fatalf("present_plan's result %q lacks %q", got, tc.toModel)
			}
			if ss, _ := r.svc.GetSession(ctx, s.ID); ss.Planning != tc.planning {
				t.Fatalf("planning = %v, want %v", ss.Planning, tc.planning)
			}
		})
	}
}
