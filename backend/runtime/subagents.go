package runtime

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

const (
	taskToolName = "task"
	// maxTaskDepth stops a subagent from starting subagents of its own.
	maxTaskDepth = 1
)

// child is a running subagent: a session whose parent is the caller.
type child struct {
	parent     string
	background bool
	cancel     context.CancelFunc
	done       chan struct{} // closed once its SubagentFinished is stored
	killed     bool          // guarded by Service.mu: the human stopped it
}

type taskArgs struct {
	Prompt      string `json:"prompt" desc:"The task, self-contained: the subagent sees nothing of this conversation."`
	Description string `json:"description,omitempty" desc:"A few words naming the task."`
	Background  bool   `json:"background,omitempty" desc:"Run in the background and return at once; default: wait for the result."`
}

//go:embed task.md
var taskDescription string

// newTaskTool is task: it runs a child loop with its own prompt. The child
// inherits the parent's axes and freeze live (policySession reads them
// from the root), so it can never be wider; its events are in its own
// session, linked to the parent by ParentID and SubagentStarted/Finished.
func newTaskTool(s *Service) tools.Tool {
	return tools.NewTyped(tools.Spec[taskArgs]{Name: taskToolName, Description: taskDescription, Risk: policy.RiskLow,
		Check: func(a *taskArgs) error {
			if strings.TrimSpace(a.Prompt) == "" {
				return errors.New("prompt is empty")
			}
			return nil
		},
		Effects: metaEffects[taskArgs], Invoke: s.task})
}

func (s *Service) task(ctx context.Context, a taskArgs, env tools.Env) (tools.Result, error) {
	parent, err := s.st.Session(ctx, env.SessionID)
	if err != nil {
		return tools.Result{}, err
	}
	depth := 0
	if parent.ParentID != "" {
		depth = 1
	}
	if depth >= maxTaskDepth {
		return tools.ErrorResult("a subagent cannot start subagents"), nil
	}
	title := a.Description
	if title == "" {
		title = firstLine(a.Prompt, 60)
	}
	kid, err := s.st.CreateSession(ctx, store.NewSession{Workspace: parent.Workspace, Title: "task: " + title,
		ParentID: parent.ID, Approval: parent.Approval, Sandbox: parent.Sandbox, Planning: parent.Planning})
	if err != nil {
		return tools.Result{}, err
	}
	if _, err := s.st.Append(context.WithoutCancel(ctx), parent.ID, store.AnyVersion,
		store.SubagentStarted{SubagentID: kid.ID, CallID: env.CallID, Task: a.Prompt, Background: a.Background}); err != nil {
		return tools.Result{}, err
	}
	base := ctx
	if a.Background {
		base = s.ctx
	}
	cctx, cancel := context.WithCancel(base)
	k := &child{parent: parent.ID, background: a.Background, cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	s.kids[kid.ID] = k
	s.mu.Unlock()
	run := func() store.SubagentFinished {
		defer cancel()
		text, err := s.childLoop(cctx, cancel, kid.ID, a.Prompt, depth+1)
		fin := store.SubagentFinished{SubagentID: kid.ID, Result: text, Background: a.Background}
		s.mu.Lock()
		fin.Killed = k.killed
		s.mu.Unlock()
		switch {
		case fin.Killed:
			fin.Error = killedByUser
		case s.ctx.Err() != nil:
			fin.Error = "Warden was shut down while the subagent ran"
		case err != nil:
			fin.Error = err.Error()
		}
		// Stored before the child is forgotten, so task_result, which
		// waits for done, always finds it.
		_, _ = s.st.Append(context.WithoutCancel(s.ctx), parent.ID, store.AnyVersion, fin)
		s.mu.Lock()
		delete(s.kids, kid.ID)
		s.mu.Unlock()
		close(k.done)
		s.touch(parent.ID)
		return fin
	}
	if a.Background {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			run()
		}()
		return tools.TextResult(fmt.Sprintf("subagent %s started in the background. Its final answer comes to you as a "+
			"message when it ends; call %s with this id to wait for it or fetch it.", kid.ID, taskResultToolName)), nil
	}
	return finishedResult(run()), nil
}

// killedByUser is what the model reads for a subagent the human stopped.
const killedByUser = "killed by the user"

// finishedResult is a finished subagent as a tool result.
func finishedResult(f store.SubagentFinished) tools.Result {
	if f.Error != "" {
		return tools.ErrorResult(fmt.Sprintf("subagent %s stopped: %s", f.SubagentID, f.Error))
	}
	return tools.TextResult(f.Result)
}

func (s *Service) childLoop(ctx context.Context, cancel context.CancelFunc, id, prompt string, depth int) (string, error) {
	if _, err := s.st.Append(ctx, id, store.AnyVersion, store.MessageAppended{MessageID: s.newID(), Role: "user", Text: prompt}); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.turns[id] = &turn{cancel: cancel, done: make(chan struct{})}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.turns, id)
		s.mu.Unlock()
	}()
	return s.loop(ctx, id, depth)
}

// KillAgent stops a subagent of the session (without cancelling the
// session's own turn), or one of its monitors. Human only: no tool calls it.
func (s *Service) KillAgent(ctx context.Context, sessionID, agentID string) error {
	s.mu.Lock()
	k, ok := s.kids[agentID]
	s.mu.Unlock()
	if ok && k.parent == sessionID {
		s.mu.Lock()
		k.killed = true
		s.mu.Unlock()
		s.gate.Cancel(agentID, "the subagent was stopped by the human")
		k.cancel()
		return nil
	}
	if s.cfg.KillMonitor != nil {
		if err := s.cfg.KillMonitor(sessionID, agentID); err == nil {
			return nil
		}
	}
	return fmt.Errorf("no running subagent or monitor %q in session %s", agentID, sessionID)
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
