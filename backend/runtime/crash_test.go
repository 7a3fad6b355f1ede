package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	askm "github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// The re-executed test binary is a whole service process: a real
// runtime.Service on a SQLite file, the real engine, gate and cage, a
// script model asking for one shell command. It kills itself (SIGKILL) at
// the point crashEnv names.
const (
	crashEnv   = "WARDEN_RUNTIME_CRASH" // the kill point
	crashDBEnv = "WARDEN_RUNTIME_CRASH_DB"
	crashWSEnv = "WARDEN_RUNTIME_CRASH_WS"
)

// The command the model asks for: one line in ran.txt per run, and an
// output the model must read.
const crashCommand = "echo ran >> ran.txt; echo wrote-the-line"

func crashScript() *script.Script {
	return &script.Script{Version: 1, OnEnd: "done", Turns: []script.Turn{
		{ToolCalls: []script.Call{{ID: "toolu_crash", Name: "shell.exec", Args: json.RawMessage(`{"command":` + jsonString(crashCommand) + `}`)}}},
		{Text: "done"},
	}}
}

// crashConfig is the service of both processes: what newRig builds, on
// the same workspace and database file.
func crashConfig(ctx context.Context, prov model.Provider, wrap func(tools.Tool) tools.Tool) (rigConfig, func(), error) {
	cage := sandbox.New(sandbox.Config{})
	cage.Detect(ctx)
	reg, err := tools.Builtins(cage, tools.NewMonitors(cage), "")
	if err != nil {
		return rigConfig{}, nil, err
	}
	if wrap != nil {
		if reg, err = reg.Wrapped(wrap); err != nil {
			return rigConfig{}, nil, err
		}
	}
	cfg := rigConfig{Engine: policy.New(policy.Config{}), Config: Config{Tools: reg, Provider: prov, Caged: cage.Caged,
		CageReason: cage.Status().Reason, Version: "test"}}
	return cfg, func() { _ = cage.Close() }, nil
}

func die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// killingTool is shell.exec with the kill points that fall inside a call.
type killingTool struct {
	tools.Tool
	at  string
	svc func() *Service
}

// Effects runs once for the decision and once more after the answer (the
// gate resolves the paths again before it runs what was decided on): the
// second time, the answer is recorded and the call has not started.
func (k killingTool) Effects(args json.RawMessage, env tools.Env) ([]policy.Effect, error) {
	if k.at == "answered" && env.CallID != "" {
		for _, a := range k.svc().gate.Asks().ByCall(env.SessionID, env.CallID) {
			if a.State == askm.Allowed {
				die()
			}
		}
	}
	return k.Tool.Effects(args, env)
}

func (k killingTool) Invoke(ctx context.Context, args json.RawMessage, env tools.Env) (tools.Result, error) {
	if k.at == "started" {
		die() // tool_invocation_started is recorded; nothing ran
	}
	res, err := k.Tool.Invoke(ctx, args, env)
	if k.at == "ran" {
		die() // the command ran; its end is not recorded
	}
	return res, err
}

func (k killingTool) Preview(args json.RawMessage, env tools.Env) (string, error) {
	if pv, ok := k.Tool.(tools.Previewer); ok {
		return pv.Preview(args, env)
	}
	return "", errors.New("no preview")
}

// killingModel dies when asked for its second turn: the call's result is
// recorded, the model never got it.
type killingModel struct {
	model.Provider
	at string
	n  int
	mu sync.Mutex
}

func (k *killingModel) Stream(ctx context.Context, req model.Request) (model.Stream, error) {
	k.mu.Lock()
	k.n++
	n := k.n
	k.mu.Unlock()
	if k.at == "finished" && n == 2 {
		die()
	}
	return k.Provider.Stream(ctx, req)
}

// crashMain is the killed process: it starts the turn, answers the ask
// once when the point is past the ask, and waits to be killed.
func crashMain() int {
	at := os.Getenv(crashEnv)
	if err := crashRun(at, os.Getenv(crashDBEnv), os.Getenv(crashWSEnv)); err != nil {
		fmt.Fprintln(os.Stderr, "crash driver:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "crash driver: not killed at", at)
	return 2
}

func crashRun(at, db, ws string) error {
	ctx := context.Background()
	st, err := store.Open(ctx, db, storetest.KeyFor(db))
	if err != nil {
		return err
	}
	var svc *Service
	wrap := func(t tools.Tool) tools.Tool {
		if t.Name() != "shell.exec" {
			return t
		}
		return killingTool{Tool: t, at: at, svc: func() *Service { return svc }}
	}
	cfg, done, err := crashConfig(ctx, &killingModel{Provider: script.New(crashScript(), script.Options{NoDelay: true}), at: at}, wrap)
	if err != nil {
		return err
	}
	defer done()
	if svc, err = cfg.open(ctx, st); err != nil {
		return err
	}
	always := policy.Always
	sess, err := svc.CreateSession(ctx, CreateSessionArgs{Workspace: ws, Approval: &always})
	if err != nil {
		return err
	}
	if err := svc.SendMessage(ctx, sess.ID, "write the line"); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ps, err := svc.PendingApprovals(ctx, sess.ID)
		if err != nil {
			return err
		}
		if len(ps) == 1 {
			if at == "asked" {
				die() // permission_requested is recorded; no answer
			}
			if err := svc.Answer(ctx, AnswerArgs{RequestID: ps[0].RequestID, Answer: AnswerOnce}); err != nil {
				return err
			}
			break
		}
		if time.Now().After(deadline) {
			return errors.New("the ask never came")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(30 * time.Second)
	return nil
}

// TestServiceCrash SIGKILLs a whole service process at each named point
// of one asked call, then starts a fresh service on the same database and
// checks the outside world (how often the command ran) and the log: one
// ask with one answer, a running call interrupted and never run again, a
// pending ask shown again and completed by one answer.
func TestServiceCrash(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	done := []askm.Transition{askm.Request, askm.AnswerOnce, askm.Start, askm.Finish}
	interrupted := []askm.Transition{askm.Request, askm.AnswerOnce, askm.Start, askm.Interrupt}
	cases := []struct {
		at string
		// shownAgain: the ask is pending after the restart; it is
		// answered once there and the call runs to its end.
		shownAgain bool
		answer     string // the answer given after the restart
		ran        int
		path       []askm.Transition
		// toModel is in the model's next request after the restart.
		toModel string
	}{
		{at: "asked", shownAgain: true, answer: AnswerOnce, ran: 1, path: done, toModel: "wrote-the-line"},
		{at: "asked", shownAgain: true, answer: AnswerDeny, ran: 0, path: []askm.Transition{askm.Request, askm.AnswerDeny}, toModel: "denied (user-denied)"},
		{at: "answered", ran: 0, path: []askm.Transition{askm.Request, askm.AnswerOnce}, toModel: "no result: the call was interrupted"},
		{at: "started", ran: 0, path: interrupted, toModel: "interrupted by a restart"},
		{at: "ran", ran: 1, path: interrupted, toModel: "interrupted by a restart"},
		{at: "finished", ran: 1, path: done, toModel: "wrote-the-line"},
	}
	for _, tc := range cases {
		name := "kill-after-" + tc.at
		if tc.answer != "" {
			name += "/then-" + tc.answer
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			ws, _ := filepath.EvalSymlinks(t.TempDir())
			db := filepath.Join(t.TempDir(), "warden.db")
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), crashEnv+"="+tc.at, crashDBEnv+"="+db, crashWSEnv+"="+ws)
			cmd.Stderr = os.Stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the service process was not killed: %v", err)
			}

			// A fresh process: this one never opened the file.
			st, err := store.Open(ctx, db, storetest.KeyFor(db))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var mu sync.Mutex
			var bodies []string
			prov := &requestLog{Provider: script.New(crashScript(), script.Options{NoDelay: true}), mu: &mu, bodies: &bodies}
			cfg, closeCage, err := crashConfig(ctx, prov, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer closeCage()
			svc, err := cfg.open(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			all, err := svc.ListSessions(ctx)
			if err != nil || len(all) != 1 {
				t.Fatalf("sessions %v, %v", all, err)
			}
			id := all[0].ID
			ps, err := svc.PendingApprovals(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if tc.shownAgain != (len(ps) == 1) || len(ps) > 1 {
				t.Fatalf("pending after the restart: %+v", ps)
			}
			if tc.shownAgain {
				a := AnswerArgs{RequestID: ps[0].RequestID, Answer: tc.answer}
				if err := svc.Answer(ctx, a); err != nil {
					t.Fatal(err)
				}
				if err := svc.Answer(ctx, a); err != nil {
					t.Fatalf("the same answer again: %v", err)
				}
			} else if err := svc.Run(ctx, id, "what happened?"); err != nil {
				t.Fatal(err)
			}
			waitTurn(t, svc, id)

			b, _ := os.ReadFile(filepath.Join(ws, "ran.txt"))
			if n := strings.Count(string(b), "ran"); n != tc.ran {
				t.Fatalf("the command ran %d times, want %d", n, tc.ran)
			}
			evs, err := st.Events(ctx, store.EventQuery{SessionID: id, Kinds: askKinds})
			if err != nil {
				t.Fatal(err)
			}
			f := askm.Fold(evs)
			if len(f.Asks) != 1 || len(f.Skipped) > 0 {
				t.Fatalf("fold: %d asks, skipped %v", len(f.Asks), f.Skipped)
			}
			if a := f.Asks[0]; !slices.Equal(a.Path, tc.path) {
				t.Fatalf("the ask went %v, want %v", a.Path, tc.path)
			}
			if len(evs) != len(tc.path) {
				t.Fatalf("%d ask events for a path of %d: one ask, one answer, each step once", len(evs), len(tc.path))
			}
			if left, _ := st.UnfinishedInvocations(ctx); len(left) != 0 {
				t.Fatalf("calls still running: %d", len(left))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) == 0 || !strings.Contains(bodies[len(bodies)-1], tc.toModel) {
				t.Fatalf("the model's next request does not read %q: %v", tc.toModel, bodies)
			}
		})
	}
}

// requestLog keeps the tool results and user texts of every request.
type requestLog struct {
	model.Provider
	mu     *sync.Mutex
	bodies *[]string
}

func (r *requestLog) Stream(ctx context.Context, req model.Request) (model.Stream, error) {
	b, _ := json.Marshal(req.Messages)
	r.mu.Lock()
	*r.bodies = append(*r.bodies, string(b))
	r.mu.Unlock()
	return r.Provider.Stream(ctx, req)
}

func waitTurn(t *testing.T, svc *Service, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		svc.mu.Lock()
		_, busy := svc.turns[id]
		svc.mu.Unlock()
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
