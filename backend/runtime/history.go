package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
)

// bang runs a human's "!cmd" through the same gate, without a model.
func (s *Service) bang(ctx context.Context, sessionID, line, cmd string) error {
	if _, err := s.st.Append(ctx, sessionID, store.AnyVersion, store.MessageAppended{MessageID: s.newID(), Role: "user", Text: line}); err != nil {
		return err
	}
	t, ok := s.tools.Get("shell.exec")
	if !ok {
		return errors.New("shell.exec is not available")
	}
	args, _ := json.Marshal(map[string]string{"command": cmd})
	callID := "bang-" + s.newID()
	out, err := s.gateCall(ctx, sessionID, callID, t, args, 0)
	if err != nil {
		return err
	}
	if s.ctx.Err() != nil {
		// Shutting down: no result, so its ask stays pending for the next
		// start, which runs the command once it is answered.
		return s.ctx.Err()
	}
	_, err = s.st.Append(context.WithoutCancel(ctx), sessionID, store.AnyVersion, store.MessageAppended{
		MessageID: s.newID(), Role: "tool", ToolCallID: callID, Text: resultText(out.Result), Images: s.resultImages(out.Result)})
	return err
}

// history rebuilds the conversation from the session's messages. A call
// left without a result (a crash, a restart mid-ask) gets an explicit
// "no result" so the transcript stays valid; a human's "!" output is
// shown to the model as user text.
func (s *Service) history(ctx context.Context, sessionID string) ([]model.Message, error) {
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindMessageAppended,
		store.KindPermissionDenied, store.KindToolInvocationFailed}})
	if err != nil {
		return nil, err
	}
	var msgs []model.Message
	var open []model.ToolCall
	got := map[string]model.ToolResult{}
	flush := func() {
		if len(open) == 0 {
			return
		}
		rs := make([]model.ToolResult, len(open))
		for i, c := range open {
			r, ok := got[c.ID]
			if !ok {
				r = model.ToolResult{CallID: c.ID, Name: c.Name, IsError: true,
					Content: []model.Part{model.TextPart("no result: the call was interrupted before it finished")}}
			}
			rs[i] = r
		}
		msgs = append(msgs, model.ToolResultsMessage(rs...))
		open, got = nil, map[string]model.ToolResult{}
	}
	user := func(text string) {
		flush()
		if n := len(msgs); n > 0 && msgs[n-1].Role == model.RoleUser {
			msgs[n-1].Content = append(msgs[n-1].Content, model.TextPart("\n\n"+text))
			return
		}
		msgs = append(msgs, model.UserMessage(text))
	}
	failed := map[string]bool{}
	for _, e := range evs {
		switch ev := e.Event.(type) {
		case store.PermissionDenied:
			failed[ev.CallID] = true
		case store.ToolInvocationFailed:
			failed[ev.CallID] = true
		}
	}
	for _, e := range evs {
		m, ok := e.Event.(store.MessageAppended)
		if !ok {
			continue
		}
		switch m.Role {
		case "user":
			user(m.Text)
		case "assistant":
			flush()
			calls := make([]model.ToolCall, len(m.ToolCalls))
			for i, c := range m.ToolCalls {
				args := c.Args
				if len(args) == 0 {
					args = json.RawMessage("{}")
				}
				calls[i] = model.ToolCall{ID: c.ID, Name: c.Name, Args: args}
			}
			msgs = append(msgs, model.AssistantMessage(m.Text, calls...))
			open = calls
		case "tool":
			isOpen := false
			for _, c := range open {
				if c.ID == m.ToolCallID {
					isOpen = true
					got[c.ID] = model.ToolResult{CallID: c.ID, Name: c.Name, IsError: failed[c.ID],
						Content: append([]model.Part{model.TextPart(m.Text)}, imageParts(m.Images)...)}
				}
			}
			if !isOpen {
				user("Output of a command the user ran:\n" + m.Text)
			}
		}
	}
	flush()
	keepNewestImages(msgs, s.cfg.Images.Keep)
	return msgs, nil
}
