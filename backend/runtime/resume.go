package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
)

// resumeRestored carries on from an ask that outlived the process that
// made it, once a human answered it: the call runs (or its denial is
// handed to the model), the calls after it in the same model turn run,
// and the model continues — what would have happened without the
// restart. The call passes the gate again, so a policy changed since the
// ask still applies (a Deny denies); if the gate would ask again, the
// human's recorded answer stands and nothing new is recorded for the
// permission, so the log keeps one ask and one answer.
//
// It runs nothing when the conversation has moved on since the ask (a
// later message), when a turn is running, or when the call already has a
// result; the answer stays recorded and a note says why.
func (s *Service) resumeRestored(ctx context.Context, v Approval, a AnswerArgs) {
	plan, why, err := s.resumePlan(ctx, v)
	if err != nil {
		s.note(v.SessionID, "the answer was recorded, but the call could not be resumed: "+err.Error())
		return
	}
	if why != "" {
		s.note(v.SessionID, "the answer was recorded; the call did not run: "+why)
		return
	}
	run := func(ctx context.Context) error { return s.runResumed(ctx, v, a, plan) }
	if _, err := s.launch(v.SessionID, run); err != nil {
		why := err.Error()
		if errors.Is(err, ErrBusy) {
			why = "a turn is running in this session"
		}
		s.note(v.SessionID, "the answer was recorded; the call did not run: "+why)
	}
}

// resumption is what is left of an interrupted model turn.
type resumption struct {
	calls []model.ToolCall // the answered call first, then the ones after it without a result
	bang  bool             // a human's "!cmd", not a model's call
	depth int
}

func (s *Service) resumePlan(ctx context.Context, v Approval) (resumption, string, error) {
	sess, err := s.st.Session(ctx, v.SessionID)
	if err != nil {
		return resumption{}, "", err
	}
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: v.SessionID, Kinds: []store.Kind{store.KindMessageAppended}})
	if err != nil {
		return resumption{}, "", err
	}
	var p resumption
	if sess.ParentID != "" {
		p.depth = 1
	}
	owner := -1 // index of the message that made the call
	for i, e := range evs {
		m := e.Event.(store.MessageAppended)
		if m.Role == "tool" && m.ToolCallID == v.CallID {
			return p, "it already has a result", nil
		}
		if m.Role == "assistant" {
			for _, c := range m.ToolCalls {
				if c.ID == v.CallID {
					owner = i
				}
			}
		}
	}
	if owner < 0 {
		if !strings.HasPrefix(v.CallID, "bang-") {
			return p, "", errors.New("the message that made the call is not in the session")
		}
		p.bang = true
		p.calls = []model.ToolCall{{ID: v.CallID, Name: v.Tool, Args: v.Args}}
		return p, laterMessage(evs, lastUserBang(evs, v)), nil
	}
	results := map[string]bool{}
	for _, e := range evs[owner+1:] {
		m := e.Event.(store.MessageAppended)
		switch m.Role {
		case "tool":
			results[m.ToolCallID] = true
		case "user", "assistant":
			return p, "the conversation has moved on since this ask", nil
		}
	}
	m := evs[owner].Event.(store.MessageAppended)
	seen := false
	for _, c := range m.ToolCalls {
		if c.ID == v.CallID {
			seen = true
		}
		if seen && !results[c.ID] {
			args := c.Args
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			p.calls = append(p.calls, model.ToolCall{ID: c.ID, Name: c.Name, Args: args})
		}
	}
	return p, "", nil
}

// lastUserBang finds the user message of a "!cmd" call (the last one
// running the call's command), so later messages can be detected.
func lastUserBang(evs []store.StoredEvent, v Approval) int {
	var args struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(v.Args, &args)
	at := -1
	for i, e := range evs {
		m := e.Event.(store.MessageAppended)
		if m.Role == "user" && strings.HasPrefix(m.Text, "!") && strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m.Text), "!")) == args.Command {
			at = i
		}
	}
	return at
}

func laterMessage(evs []store.StoredEvent, at int) string {
	if at < 0 {
		return "the command's message is not in the session"
	}
	for _, e := range evs[at+1:] {
		if m := e.Event.(store.MessageAppended); m.Role == "user" || m.Role == "assistant" {
			return "the conversation has moved on since this ask"
		}
	}
	return ""
}

func (s *Service) runResumed(ctx context.Context, v Approval, a AnswerArgs, p resumption) error {
	first, rest := p.calls[0], p.calls[1:]
	if a.Answer == AnswerDeny {
		detail := "a human denied the call"
		if a.Note != "" {
			detail += ": " + a.Note
		}
		if _, err := s.st.Append(context.WithoutCancel(ctx), v.SessionID, store.AnyVersion, store.MessageAppended{
			MessageID: s.newID(), Role: "tool", ToolCallID: first.ID, Text: "denied (user-denied): " + detail}); err != nil {
			return err
		}
		if p.bang {
			return nil
		}
	} else {
		if err := s.runCall(ctx, v.SessionID, first, p.depth); err != nil || p.bang {
			return err
		}
	}
	if err := s.runCalls(ctx, v.SessionID, rest, p.depth); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if s.current().provider == nil {
		s.note(v.SessionID, "no model is configured, so the agent cannot carry on from this result")
		return nil
	}
	_, err := s.loop(ctx, v.SessionID, p.depth)
	return err
}
