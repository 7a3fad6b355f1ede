package gate

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// seatRig is a gate on a real store with its human seat, a session and a
// workspace.
type seatRig struct {
	st   *store.Store
	g    *Gate
	sess store.Session
	env  tools.Env
	mu   sync.Mutex
	evs  []Event
}

func newSeatRig(t *testing.T, d policy.Decision, mod func(*Config)) *seatRig {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := store.Open(ctx, db, storetest.KeyFor(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	r := &seatRig{st: st, env: testEnv(t)}
	if r.sess, err = st.CreateSession(ctx, store.NewSession{Workspace: r.env.Workspace}); err != nil {
		t.Fatal(err)
	}
	r.env.SessionID = r.sess.ID
	cfg := Config{Decider: &fixedDecider{d: d}, Store: st, ApprovalTimeout: 20 * time.Second,
		Session: func(context.Context, tools.Env) (policy.Session, error) {
			return policy.Session{Workspace: r.env.Workspace, Sandbox: r.env.Sandbox}, nil
		}}
	if mod != nil {
		mod(&cfg)
	}
	if r.g, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	stop := r.g.Listen(func(ev Event) {
		r.mu.Lock()
		r.evs = append(r.evs, ev)
		r.mu.Unlock()
	})
	t.Cleanup(stop)
	return r
}

// write runs fs.write of f.txt through the gate in the background.
func (r *seatRig) write(t *testing.T) <-chan Outcome {
	done := make(chan Outcome, 1)
	go func() {
		out, err := r.g.Call(context.Background(), Request{Tool: tools.NewFsWrite(), Args: json.RawMessage(`{"path":"f.txt","content":"x"}`), Env: r.env})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	return done
}

// pending waits for n asks waiting for a human.
func (r *seatRig) pending(t *testing.T, n int) []Pending {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		ps, err := r.g.Pending(context.Background(), r.sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == n {
			return ps
		}
	}
	t.Fatalf("no %d pending asks", n)
	return nil
}

func (r *seatRig) decisions(t *testing.T) []store.Event {
	t.Helper()
	evs, err := r.st.Events(context.Background(), store.EventQuery{SessionID: r.sess.ID,
		Kinds: []store.Kind{store.KindPermissionGranted, store.KindPermissionDenied}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]store.Event, len(evs))
	for i, e := range evs {
		out[i] = e.Event
	}
	return out
}

var askAlways = policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{policy.ReasonPolicyAlways}, Signature: "fs.write",
	Layer: policy.LayerPolicy}

// A human's answer through the seat records who decided: the human layer
// and the front end answered from; the seat tells the listener when the
// ask opens and closes; the waiting call wakes and runs.
func TestSeatAnswerRecordsTheFrontEnd(t *testing.T) {
	for _, via := range []string{ViaWindow, ViaTUI, ViaServe, ViaRemote, ""} {
		t.Run("via "+via, func(t *testing.T) {
			r := newSeatRig(t, askAlways, nil)
			done := r.write(t)
			p := r.pending(t, 1)[0]
			if !p.Live || p.Signature != "fs.write" {
				t.Fatalf("pending %+v", p)
			}
			if _, err := r.g.Answer(context.Background(), AnswerArgs{RequestID: p.RequestID, Answer: AnswerOnce, Via: via}, nil); err != nil {
				t.Fatal(err)
			}
			out := <-done
			if !out.Invoked || out.Decision.Layer != policy.LayerHuman || out.Decision.LayerDetail != via {
				t.Fatalf("outcome %+v", out.Decision)
			}
			ds := r.decisions(t)
			g, ok := ds[0].(store.PermissionGranted)
			if len(ds) != 1 || !ok || g.Layer != policy.LayerHuman || g.LayerDetail != via || g.Via != string(ask.AnswerOnce) {
				t.Fatalf("recorded %+v", ds)
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.evs) != 2 {
				t.Fatalf("listener saw %+v", r.evs)
			}
			if o, ok := r.evs[0].(AskOpened); !ok || o.Pending.RequestID != p.RequestID {
				t.Fatalf("first event %+v", r.evs[0])
			}
			if c, ok := r.evs[1].(AskClosed); !ok || c.RequestID != p.RequestID || c.SessionID != r.sess.ID {
				t.Fatalf("second event %+v", r.evs[1])
			}
		})
	}
	r := newSeatRig(t, askAlways, nil)
	if _, err := r.g.Answer(context.Background(), AnswerArgs{RequestID: "x", Answer: AnswerOnce, Via: "telepathy"}, nil); err == nil {
		t.Fatal("an unknown front end was taken")
	}
}

// scripted is an answerer with a fixed answer, counting its questions.
type scripted struct {
	kind string
	v    Verdict
	err  error
	mu   sync.Mutex
	n    int
}

func (s *scripted) Kind() string { return s.kind }
func (s *scripted) Answer(context.Context, Question) (Verdict, error) {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
	return s.v, s.err
}

// Answerers answer before the human, in order; a pass goes on, an error
// is a denial; what only a human may answer never reaches them.
func TestAnswerersBeforeTheHuman(t *testing.T) {
	protected := policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{policy.ReasonProtectedPath}, Signature: "fs.write"}
	cases := []struct {
		name      string
		decision  policy.Decision
		answerers []*scripted
		human     bool // the human must be asked (and answers yes)
		verdict   policy.Verdict
		layer     policy.Layer
		detail    string
		via       ask.Transition
		asked     []int // questions each answerer got
	}{
		{name: "the first allows", decision: askAlways, answerers: []*scripted{{kind: "command", v: Verdict{Answer: AnswererAllow}}, {kind: "model"}},
			verdict: policy.VerdictAllow, layer: policy.LayerAnswerer, detail: "command", via: ask.AnswererAllow, asked: []int{1, 0}},
		{name: "a pass goes to the next, which denies", decision: askAlways,
			answerers: []*scripted{{kind: "command", v: Verdict{Answer: AnswererPass}}, {kind: "model", v: Verdict{Answer: AnswererDeny, Why: "not in the task"}}},
			verdict:   policy.VerdictDeny, layer: policy.LayerAnswerer, detail: "model", via: ask.AnswererDeny, asked: []int{1, 1}},
		{name: "an answerer that fails denies", decision: askAlways, answerers: []*scripted{{kind: "command", err: errors.New("exit 3")}},
			verdict: policy.VerdictDeny, layer: policy.LayerAnswerer, detail: "command", via: ask.AnswererDeny, asked: []int{1}},
		{name: "a malformed answer denies", decision: askAlways, answerers: []*scripted{{kind: "command", v: Verdict{Answer: "maybe"}}},
			verdict: policy.VerdictDeny, layer: policy.LayerAnswerer, detail: "command", via: ask.AnswererDeny, asked: []int{1}},
		{name: "all pass: the human answers", decision: askAlways, answerers: []*scripted{{kind: "command", v: Verdict{Answer: AnswererPass}}},
			human: true, verdict: policy.VerdictAllow, layer: policy.LayerHuman, detail: ViaWindow, via: ask.AnswerOnce, asked: []int{1}},
		{name: "a protected path goes to the human only", decision: protected, answerers: []*scripted{{kind: "command", v: Verdict{Answer: AnswererAllow}}},
			human: true, verdict: policy.VerdictAllow, layer: policy.LayerHuman, detail: ViaWindow, via: ask.AnswerOnce, asked: []int{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newSeatRig(t, tc.decision, func(c *Config) {
				for _, a := range tc.answerers {
					c.Answerers = append(c.Answerers, a)
				}
			})
			done := r.write(t)
			if tc.human {
				p := r.pending(t, 1)[0]
				if _, err := r.g.Answer(context.Background(), AnswerArgs{RequestID: p.RequestID, Answer: AnswerOnce, Via: ViaWindow}, nil); err != nil {
					t.Fatal(err)
				}
			}
			out := <-done
			d := out.Decision
			if d.Verdict != tc.verdict || d.Layer != tc.layer || d.LayerDetail != tc.detail || out.Invoked != (tc.verdict == policy.VerdictAllow) {
				t.Fatalf("decision %+v invoked %v", d, out.Invoked)
			}
			if tc.verdict == policy.VerdictDeny && (d.Reason != policy.ReasonAnswererDenied || !strings.Contains(text(out.Result), "answerer-denied")) {
				t.Fatalf("denial %+v: %s", d, text(out.Result))
			}
			ds := r.decisions(t)
			var via string
			switch x := ds[0].(type) {
			case store.PermissionGranted:
				via = x.Via
			case store.PermissionDenied:
				via = x.Via
			}
			if len(ds) != 1 || via != string(tc.via) {
				t.Fatalf("recorded %+v, want via %s", ds, tc.via)
			}
			for i, a := range tc.answerers {
				if a.n != tc.asked[i] {
					t.Errorf("answerer %d asked %d times, want %d", i, a.n, tc.asked[i])
				}
			}
		})
	}
}

// fakeCheckpoint records the calls it was around; its Finish reports one
// changed file.
type fakeCheckpoint struct {
	mu    sync.Mutex
	begun []CallInfo
}

type fakeCall struct{ c CallInfo }

func (f *fakeCheckpoint) Begin(_ context.Context, c CallInfo) Checkpoint {
	f.mu.Lock()
	f.begun = append(f.begun, c)
	f.mu.Unlock()
	return fakeCall{c}
}

func (f fakeCall) Finish(_ context.Context, res *tools.Result) Changes {
	return Changes{Event: store.WorkspaceChanged{CallID: f.c.CallID, Workspace: f.c.Workspace,
		Files: []store.FileChange{{Path: "f.txt"}}}, Checkpoint: f}
}

// checker is a post-call check that reports the changes it saw.
type checker struct{ saw []Changes }

func (k *checker) AfterCall(_ context.Context, c CallInfo, ch Changes) (PostReport, error) {
	k.saw = append(k.saw, ch)
	return PostReport{Note: "[check] saw " + ch.Event.Files[0].Path,
		Events: []store.Event{store.MessageAppended{MessageID: "m-" + c.CallID, Role: "system", Text: "checked " + c.Tool}}}, nil
}

// hook refuses commands naming a word, and counts what it saw after.
type hook struct {
	word  string
	after []string
}

func (h *hook) Name() string { return "no-" + h.word }
func (h *hook) BeforeCall(_ context.Context, c CallInfo) (*Refusal, error) {
	for _, e := range c.Effects {
		for _, p := range e.Paths {
			if strings.Contains(p, h.word) {
				return &Refusal{Why: "the path names " + h.word}, nil
			}
		}
	}
	return nil, nil
}
func (h *hook) AfterCall(_ context.Context, c CallInfo, res tools.Result) {
	h.after = append(h.after, c.Tool)
}

// The stages around the invoke: the checkpoint around it, the post-call
// check after it (its note reaches the model, its event the log), the
// after-call hooks last; a pre-call hook's refusal denies before anything
// runs.
func TestStagesAroundTheInvoke(t *testing.T) {
	allow := policy.Decision{Verdict: policy.VerdictAllow, Source: "sandbox+policy", Signature: "fs.write", Layer: policy.LayerPolicy}
	cp, check, h := &fakeCheckpoint{}, &checker{}, &hook{word: "secret"}
	r := newSeatRig(t, allow, func(c *Config) {
		c.Checkpoint, c.PostCall, c.Hooks = cp, []PostCall{check}, []Hook{h}
	})
	out := <-r.write(t)
	if !out.Invoked || !strings.Contains(text(out.Result), "[check] saw f.txt") {
		t.Fatalf("outcome %+v", out)
	}
	if len(cp.begun) != 1 || cp.begun[0].Decision.Source != "sandbox+policy" || len(check.saw) != 1 || len(h.after) != 1 {
		t.Fatalf("checkpoint %+v, check %+v, hook after %v", cp.begun, check.saw, h.after)
	}
	msgs, err := r.st.Events(context.Background(), store.EventQuery{SessionID: r.sess.ID, Kinds: []store.Kind{store.KindMessageAppended}})
	if err != nil || len(msgs) != 1 || msgs[0].Event.(store.MessageAppended).Text != "checked fs.write" {
		t.Fatalf("the check's event: %+v %v", msgs, err)
	}

	out, err = r.g.Call(context.Background(), Request{Tool: tools.NewFsWrite(), Args: json.RawMessage(`{"path":"secret.txt","content":"x"}`), Env: r.env})
	if err != nil {
		t.Fatal(err)
	}
	d := out.Decision
	if out.Invoked || d.Verdict != policy.VerdictDeny || d.Reason != policy.ReasonHookDenied || d.LayerDetail != "hook:no-secret" ||
		exists(filepath.Join(r.env.Workspace, "secret.txt")) || len(cp.begun) != 1 {
		t.Fatalf("the refused call: %+v invoked %v", d, out.Invoked)
	}
	ds := r.decisions(t)
	if den, ok := ds[len(ds)-1].(store.PermissionDenied); !ok || den.Reason != policy.ReasonHookDenied || den.Layer != policy.LayerAnswerer {
		t.Fatalf("recorded %+v", ds[len(ds)-1])
	}
}
