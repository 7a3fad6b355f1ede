package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	askm "github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// callStory collects, per call id, the permission and invocation events.
type callStory struct {
	requested *store.PermissionRequested
	granted   *store.PermissionGranted
	denied    *store.PermissionDenied
	completed *store.ToolInvocationCompleted
	failed    *store.ToolInvocationFailed
}

func stories(evs []store.StoredEvent) map[string]*callStory {
	out := map[string]*callStory{}
	get := func(id string) *callStory {
		if out[id] == nil {
			out[id] = &callStory{}
		}
		return out[id]
	}
	for _, e := range evs {
		switch ev := e.Event.(type) {
		case store.PermissionRequested:
			get(ev.CallID).requested = &ev
		case store.PermissionGranted:
			get(ev.CallID).granted = &ev
		case store.PermissionDenied:
			get(ev.CallID).denied = &ev
		case store.ToolInvocationCompleted:
			get(ev.CallID).completed = &ev
		case store.ToolInvocationFailed:
			get(ev.CallID).failed = &ev
		}
	}
	return out
}

// TestDoneWhen is issue 8's "Done when": a conversation with a server
// speaking the Anthropic wire protocol runs end to end through the real
// gate, engine, tools, cage and store.
func TestDoneWhen(t *testing.T) {
	srv := newSSEServer(t, "1_read.sse", "2_write.sse", "3_rm.sse", "4_curl.sse", "5_done.sse")
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	ctx := context.Background()
	sess := r.session(nil)
	if sess.Approval != policy.OnRequest || sess.Sandbox.Kind != policy.WorkspaceWrite || sess.Sandbox.NetworkAccess {
		t.Fatalf("defaults: %+v", sess)
	}
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	pushes := r.svc.Subscribe(pctx)
	seenc := make(chan map[string]bool)
	go func() {
		seen := map[string]bool{}
		for p := range pushes {
			seen[p.Type] = true
		}
		seenc <- seen
	}()

	if err := r.svc.SendMessage(ctx, sess.ID, "Tidy the project"); err != nil {
		t.Fatal(err)
	}
	asks := r.waitPending(sess.ID, 1)
	ask := asks[0]
	if ask.Tool != "shell.exec" || ask.CallID != "toolu_rm" || !ask.Live {
		t.Fatalf("ask: %+v", ask)
	}
	if ask.Signature != "shell=rm -rf build" || !containsReason(ask.Reasons, policy.ReasonDestructiveEffect) {
		t.Fatalf("ask signature %q reasons %v", ask.Signature, ask.Reasons)
	}
	if err := r.svc.Answer(ctx, AnswerArgs{RequestID: ask.RequestID, Answer: AnswerAlways, Scope: policy.ScopeSession}); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)

	// The effects happened on disk.
	if b, err := os.ReadFile(filepath.Join(r.ws, "notes.txt")); err != nil || string(b) != "build notes\n" {
		t.Fatalf("notes.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "build")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("build should be gone: %v", err)
	}

	st := stories(r.events(sess.ID))
	cases := []struct {
		call, source string
		denied       policy.Reason
		asked        bool
	}{
		{call: "toolu_read", source: "sandbox+policy"},
		{call: "toolu_write", source: "sandbox+policy"},
		{call: "toolu_rm", source: "human:always", asked: true},
		{call: "toolu_curl", denied: policy.ReasonSandboxRejected},
	}
	for _, c := range cases {
		t.Run(c.call, func(t *testing.T) {
			s := st[c.call]
			if s == nil {
				t.Fatal("no events for the call")
			}
			if (s.requested != nil) != c.asked {
				t.Errorf("asked = %v, want %v", s.requested != nil, c.asked)
			}
			if c.denied != "" {
				if s.denied == nil || s.denied.Reason != c.denied || s.denied.By != store.DeniedBySandbox {
					t.Fatalf("denial: %+v", s.denied)
				}
				if !strings.Contains(strings.ToLower(s.denied.Remedy), "network") {
					t.Errorf("remedy %q does not say how to admit it", s.denied.Remedy)
				}
				if s.completed != nil || s.granted != nil {
					t.Error("a denied call ran")
				}
				return
			}
			if s.granted == nil || s.granted.Source != c.source {
				t.Fatalf("granted: %+v, want source %s", s.granted, c.source)
			}
			if s.completed == nil {
				t.Fatalf("not completed (failed: %+v)", s.failed)
			}
		})
	}

	// The model read the denial and its remedy.
	if n := srv.requests(); n != 5 {
		t.Fatalf("model requests = %d, want 5", n)
	}
	if body := string(srv.bodies[4]); !strings.Contains(body, "sandbox-rejected") {
		t.Errorf("the last request does not carry the denial: %s", body)
	}

	// "always" remembered exactly that signature, for the reason asked.
	gs, err := r.svc.ListGrants(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 1 || gs[0].Signature != "shell=rm -rf build" || gs[0].Scope != "session" ||
		len(gs[0].Reasons) != 1 || gs[0].Reasons[0] != policy.ReasonDestructiveEffect {
		t.Fatalf("grants: %+v", gs)
	}
	// The same command now runs on the grant; a sibling still asks.
	if err := os.MkdirAll(filepath.Join(r.ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Run(ctx, sess.ID, "!rm -rf build"); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.SendMessage(ctx, sess.ID, "!rm -rf dist"); err != nil {
		t.Fatal(err)
	}
	sib := r.waitPending(sess.ID, 1)[0]
	if sib.Signature != "shell=rm -rf dist" {
		t.Fatalf("sibling signature %q", sib.Signature)
	}
	if err := r.svc.Answer(ctx, AnswerArgs{RequestID: sib.RequestID, Answer: AnswerDeny, Note: "keep dist"}); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)
	var viaGrant, userDenied bool
	for _, e := range r.events(sess.ID, store.KindPermissionGranted, store.KindPermissionDenied) {
		switch ev := e.Event.(type) {
		case store.PermissionGranted:
			viaGrant = viaGrant || ev.Source == "session-grant:shell=rm -rf build"
		case store.PermissionDenied:
			userDenied = userDenied || (ev.By == store.DeniedByUser && strings.Contains(ev.Detail, "keep dist"))
		}
	}
	if !viaGrant || !userDenied {
		t.Fatalf("grant use %v, user denial with note %v", viaGrant, userDenied)
	}

	// The window saw the stream: deltas, the ask and its resolution.
	stop()
	seen := <-seenc
	for _, k := range []string{PushDelta, PushApproval, PushApprovalResolved, PushEvent, PushSession} {
		if !seen[k] {
			t.Errorf("no %s push", k)
		}
	}
}

func containsReason(rs []policy.Reason, r policy.Reason) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// TestRestartMidAskShowsTheAskAgain closes the service and the database
// while an ask waits, reopens both on the same file, and answers it there:
// the interrupted turn carries on as if the process had never stopped.
func TestRestartMidAskShowsTheAskAgain(t *testing.T) {
	cases := []struct {
		name   string
		answer AnswerArgs
		// bang asks with a human's "!rm -rf build" instead of the model.
		bang bool
		// moveOn sends a "!" command after the restart, before the answer.
		moveOn   bool
		ran      bool   // rm -rf build ran
		toModel  string // what the model's next request must contain; "" = no next request
		source   string // the restored ask's recorded answer
		noteHas  string // a system note that must be recorded
		grantSig string
	}{
		{name: "once runs the call and the model carries on", answer: AnswerArgs{Answer: AnswerOnce},
			ran: true, toModel: `"tool_use_id":"toolu_rm2"`, source: "human:once"},
		{name: "always adds the grant, which lets the call run without asking again", answer: AnswerArgs{Answer: AnswerAlways},
			ran: true, toModel: `"tool_use_id":"toolu_rm2"`, source: "human:always", grantSig: "shell=rm -rf build"},
		{name: "deny hands the denial and the note to the model", answer: AnswerArgs{Answer: AnswerDeny, Note: "keep the build"},
			toModel: "keep the build", source: "denied"},
		{name: "a human's ! command runs once answered", answer: AnswerArgs{Answer: AnswerOnce}, bang: true,
			ran: true, source: "human:once"},
		{name: "a conversation that moved on runs nothing", answer: AnswerArgs{Answer: AnswerOnce}, moveOn: true,
			source: "human:once", noteHas: "the conversation has moved on"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSSEServer(t, "r1_rm.sse", "5_done.sse")
			r := newRig(t, anthropicProvider(t, srv.URL), nil)
			ctx := context.Background()
			sess := r.session(nil)
			msg := "clean up"
			if tc.bang {
				msg = "!rm -rf build"
			}
			if err := r.svc.SendMessage(ctx, sess.ID, msg); err != nil {
				t.Fatal(err)
			}
			before := r.waitPending(sess.ID, 1)[0]

			r.close()
			r.open()

			after, err := r.svc.PendingApprovals(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != 1 || after[0].RequestID != before.RequestID || after[0].Signature != before.Signature || after[0].Live {
				t.Fatalf("after restart: %+v", after)
			}
			if got, _ := r.svc.GetSession(ctx, sess.ID); got.Pending != 1 {
				t.Fatalf("session pending = %d", got.Pending)
			}
			if tc.moveOn {
				if err := r.svc.Run(ctx, sess.ID, "!echo later"); err != nil {
					t.Fatal(err)
				}
			}
			a := tc.answer
			a.RequestID = before.RequestID
			if err := r.svc.Answer(ctx, a); err != nil {
				t.Fatal(err)
			}
			if err := r.svc.Answer(ctx, a); err != nil {
				t.Fatalf("repeating an answer: %v", err)
			}
			other := AnswerArgs{RequestID: before.RequestID, Answer: AnswerDeny}
			if a.Answer == AnswerDeny {
				other.Answer = AnswerOnce
			}
			var re *RequestError
			if err := r.svc.Answer(ctx, other); !errors.As(err, &re) {
				t.Fatalf("a different answer later: %v", err)
			}
			r.waitIdle(sess.ID)
			if ps, _ := r.svc.PendingApprovals(ctx, sess.ID); len(ps) != 0 {
				t.Fatalf("still pending: %+v", ps)
			}

			all := r.events(sess.ID)
			src, asks, answers := "", 0, 0
			for _, e := range all {
				switch ev := e.Event.(type) {
				case store.PermissionGranted:
					if ev.CallID == before.CallID {
						answers++
					}
					if ev.RequestID == before.RequestID {
						src = ev.Source
					}
				case store.PermissionDenied:
					if ev.CallID == before.CallID {
						answers++
					}
					if ev.RequestID == before.RequestID {
						src = "denied"
					}
				case store.PermissionRequested:
					if ev.CallID == before.CallID {
						asks++
					}
				}
			}
			if src != tc.source {
				t.Fatalf("answer source %q, want %q", src, tc.source)
			}
			// One ask, one answer, in the stream and the audit alike.
			if asks != 1 || answers != 1 {
				t.Errorf("the call has %d asks and %d answers, want one of each", asks, answers)
			}
			audit, err := r.st.PermissionAudit(ctx, sess.ID)
			must(t, err)
			n := 0
			for _, e := range audit {
				var f struct {
					CallID string `json:"call_id"`
				}
				_ = json.Unmarshal(e.Payload, &f)
				if f.CallID == before.CallID {
					n++
				}
			}
			if n != 2 {
				t.Errorf("the audit holds %d permission events of the call, want the one ask and its answer", n)
			}
			// The log folds into that one ask, carried on from where the
			// restart left it: requested, answered, and run (or not).
			var lives []string
			for _, a := range askm.Fold(all).Asks {
				if a.CallID == before.CallID {
					lives = append(lives, a.RequestID+":"+fmt.Sprint(a.Path))
				}
			}
			wantPath := "[request answer-" + tc.answer.Answer + "]"
			if tc.ran {
				wantPath = "[request answer-" + tc.answer.Answer + " start finish]"
			}
			if len(lives) != 1 || lives[0] != before.RequestID+":"+wantPath {
				t.Errorf("the call's asks fold into %v, want %s:%s", lives, before.RequestID, wantPath)
			}
			story := stories(all)[before.CallID]
			_, statErr := os.Stat(filepath.Join(r.ws, "build"))
			if ran := story.completed != nil; ran != tc.ran || ran != os.IsNotExist(statErr) {
				t.Fatalf("ran = %v (completed %v, build: %v), want %v", ran, story.completed != nil, statErr, tc.ran)
			}
			if tc.toModel == "" {
				if want := map[bool]int{false: 1, true: 0}[tc.bang]; srv.requests() != want {
					t.Fatalf("the model was asked %d times", srv.requests())
				}
			} else {
				if srv.requests() != 2 {
					t.Fatalf("the model was asked %d times, want 2", srv.requests())
				}
				var body map[string]any
				_ = json.Unmarshal(srv.bodies[1], &body)
				compact, _ := json.Marshal(body)
				if !strings.Contains(string(compact), tc.toModel) {
					t.Fatalf("the resumed request lacks %s: %s", tc.toModel, compact)
				}
				msgs := r.events(sess.ID, store.KindMessageAppended)
				last := msgs[len(msgs)-1].Event.(store.MessageAppended)
				if last.Role != "assistant" || !strings.HasPrefix(last.Text, "All done") {
					t.Fatalf("the turn did not end with the model's answer: %+v", last)
				}
			}
			if tc.noteHas != "" {
				found := false
				for _, e := range r.events(sess.ID, store.KindMessageAppended) {
					if m := e.Event.(store.MessageAppended); m.Role == "system" && strings.Contains(m.Text, tc.noteHas) {
						found = true
					}
				}
				if !found {
					t.Fatalf("no note saying %q", tc.noteHas)
				}
			}
			if tc.grantSig != "" {
				gs, err := r.svc.ListGrants(ctx, sess.ID)
				if err != nil || len(gs) != 1 || gs[0].Signature != tc.grantSig {
					t.Fatalf("grants %+v, %v", gs, err)
				}
			}
			// The transcript stays valid for the next turn.
			if _, err := r.svc.history(ctx, sess.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}
