package runtime

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

const (
	taskResultToolName = "task_result"
	// maxTaskWait bounds one task_result wait; the model can call again.
	maxTaskWait        = 10 * time.Minute
	defaultTaskWaitSec = 120
)

type taskResultArgs struct {
	ID      string `json:"id,omitempty" desc:"The subagent id that task returned (or the id of the task call); omit to list this session's subagents and their state."`
	Wait    *bool  `json:"wait,omitempty" desc:"Wait for a running subagent to finish (default true); false only reports its state."`
	Timeout int    `json:"timeout_sec,omitempty" desc:"How long to wait, in seconds (default 120, at most 600); on timeout the subagent keeps running."`
}

//go:embed task_result.md
var taskResultDescription string

// newTaskResultTool is task_result: it waits for or fetches a background
// subagent's final answer. The answer also reaches the model unasked, as a
// message at its next turn (history); this is for a model that needs it
// before going on.
func newTaskResultTool(s *Service) tools.Tool {
	return tools.NewTyped(tools.Spec[taskResultArgs]{Name: taskResultToolName, Description: taskResultDescription, Risk: policy.RiskLow,
		Check: func(a *taskResultArgs) error {
			if a.Timeout < 0 {
				return errors.New("timeout_sec is negative")
			}
			a.ID = strings.TrimSpace(a.ID)
			return nil
		},
		Effects: metaEffects[taskResultArgs], Invoke: s.taskResult})
}

func (s *Service) taskResult(ctx context.Context, a taskResultArgs, env tools.Env) (tools.Result, error) {
	var err error
	if a.ID == "" {
		return s.listSubagents(ctx, env.SessionID)
	}
	a.ID, err = s.subagentID(ctx, env.SessionID, a.ID)
	if err != nil {
		return tools.Result{}, err
	}
	kid, err := s.st.Session(ctx, a.ID)
	if err != nil || kid.ParentID != env.SessionID {
		return tools.ErrorResult(fmt.Sprintf("no subagent %q of this session: use the id task returned, or call %s without an id to list them",
			a.ID, taskResultToolName)), nil
	}
	if f, ok, err := s.subagentFinished(ctx, env.SessionID, a.ID); err != nil || ok {
		return finishedResult(f), err
	}
	s.mu.Lock()
	k, running := s.kids[a.ID]
	s.mu.Unlock()
	if !running {
		return tools.ErrorResult(fmt.Sprintf("subagent %s ended without a result (Warden stopped while it ran)", a.ID)), nil
	}
	if a.Wait != nil && !*a.Wait {
		return tools.TextResult(fmt.Sprintf("subagent %s is still running", a.ID)), nil
	}
	wait := time.Duration(defaultTaskWaitSec) * time.Second
	if a.Timeout > 0 {
		wait = min(time.Duration(a.Timeout)*time.Second, maxTaskWait)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-k.done:
	case <-timer.C:
		return tools.TextResult(fmt.Sprintf("subagent %s is still running after %s; it goes on, and its answer comes to you when it ends",
			a.ID, wait)), nil
	case <-ctx.Done():
		return tools.Result{}, ctx.Err()
	}
	f, ok, err := s.subagentFinished(ctx, env.SessionID, a.ID)
	if err != nil {
		return tools.Result{}, err
	}
	if !ok {
		return tools.ErrorResult(fmt.Sprintf("subagent %s ended without a result", a.ID)), nil
	}
	return finishedResult(f), nil
}

// subagentID resolves what the model calls a subagent: its id, or the id
// of the task call that started it.
func (s *Service) subagentID(ctx context.Context, parentID, ref string) (string, error) {
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: parentID, Kinds: []store.Kind{store.KindSubagentStarted}})
	if err != nil {
		return "", err
	}
	for _, e := range evs {
		if st := e.Event.(store.SubagentStarted); st.CallID == ref && st.CallID != "" {
			return st.SubagentID, nil
		}
	}
	return ref, nil
}

// subagentFinished finds a child's SubagentFinished in the parent's log.
func (s *Service) subagentFinished(ctx context.Context, parentID, kidID string) (store.SubagentFinished, bool, error) {
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: parentID, Kinds: []store.Kind{store.KindSubagentFinished}})
	if err != nil {
		return store.SubagentFinished{}, false, err
	}
	for _, e := range evs {
		if f := e.Event.(store.SubagentFinished); f.SubagentID == kidID {
			return f, true, nil
		}
	}
	return store.SubagentFinished{}, false, nil
}

func (s *Service) listSubagents(ctx context.Context, sessionID string) (tools.Result, error) {
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindSubagentStarted, store.KindSubagentFinished}})
	if err != nil {
		return tools.Result{}, err
	}
	var order []string
	tasks, states := map[string]string{}, map[string]string{}
	for _, e := range evs {
		switch ev := e.Event.(type) {
		case store.SubagentStarted:
			order = append(order, ev.SubagentID)
			tasks[ev.SubagentID] = firstLine(ev.Task, 60)
			states[ev.SubagentID] = "running"
		case store.SubagentFinished:
			states[ev.SubagentID] = "done"
			if ev.Error != "" {
				states[ev.SubagentID] = "failed: " + ev.Error
			}
		}
	}
	if len(order) == 0 {
		return tools.TextResult("no subagents in this session"), nil
	}
	var b strings.Builder
	for _, id := range order {
		st := states[id]
		if st == "running" {
			s.mu.Lock()
			_, live := s.kids[id]
			s.mu.Unlock()
			if !live {
				st = "ended without a result"
			}
		}
		fmt.Fprintf(&b, "%s [%s] %s\n", id, st, tasks[id])
	}
	return tools.TextResult(strings.TrimRight(b.String(), "\n")), nil
}
