package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/gate"
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
	out, err := s.gate.Call(ctx, s.request(sessionID, callID, t, args))
	if err != nil {
		return err
	}
	if s.ctx.Err() != nil && out.Invoked {
		// Shutting down while it ran: no result, so it reads as
		// interrupted.
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
		store.KindPermissionDenied, store.KindToolInvocationFailed, store.KindSubagentStarted, store.KindSubagentFinished,
		store.KindMonitorStarted, store.KindMonitorPortExposed}})
	if err != nil {
		return nil, err
	}
	var msgs []model.Message
	var open []model.ToolCall
	got := map[string]model.ToolResult{}
	interrupted := map[string]string{} // call id → why a restart ended it
	flush := func() {
		if len(open) == 0 {
			return
		}
		rs := make([]model.ToolResult, len(open))
		for i, c := range open {
			r, ok := got[c.ID]
			if !ok {
				why := "no result: the call was interrupted before it finished"
				if w := interrupted[c.ID]; w != "" {
					why = "no result: " + w
				}
				r = model.ToolResult{CallID: c.ID, Name: c.Name, IsError: true, Content: []model.Part{model.TextPart(why)}}
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
			if gate.Interrupted(ev) {
				interrupted[ev.CallID] = ev.Error
			}
		}
	}
	// A background subagent's end is told to the model as a user message
	// at the first point the transcript allows one: never between a turn's
	// tool calls and their results, and not at all when task_result has
	// already handed the model that answer.
	tasks := map[string]string{}
	fetched := map[string]bool{}
	kidOfCall := map[string]string{} // task call id → subagent id
	var notices []store.SubagentFinished
	// A monitor's port reachable from the host is told the same way: the
	// model learns the URL it can open with the browser tool.
	monitors := map[string]string{} // monitor id → command
	var ports []store.MonitorPortExposed
	tell := func() {
		for _, f := range notices {
			if !fetched[f.SubagentID] {
				user(subagentNotice(f, tasks[f.SubagentID]))
			}
		}
		notices = nil
		for _, p := range ports {
			user(portNotice(p, monitors[p.MonitorID]))
		}
		ports = nil
	}
	for _, e := range evs {
		switch ev := e.Event.(type) {
		case store.MonitorStarted:
			monitors[ev.MonitorID] = ev.Command
			continue
		case store.MonitorPortExposed:
			ports = append(ports, ev)
			continue
		case store.SubagentStarted:
			tasks[ev.SubagentID] = ev.Task
			if ev.CallID != "" {
				kidOfCall[ev.CallID] = ev.SubagentID
			}
			continue
		case store.SubagentFinished:
			if ev.Background {
				notices = append(notices, ev)
			}
			continue
		}
		m, ok := e.Event.(store.MessageAppended)
		if !ok {
			continue
		}
		switch m.Role {
		case "user":
			tell()
			user(m.Text)
		case "assistant":
			flush()
			tell()
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
					// The call handed over the answer when its result is
					// exactly that answer (not "still running").
					for _, f := range notices {
						ref := taskResultID(c)
						if kid, ok := kidOfCall[ref]; ok {
							ref = kid
						}
						if f.SubagentID == ref && resultText(finishedResult(f)) == m.Text {
							fetched[f.SubagentID] = true
						}
					}
					got[c.ID] = model.ToolResult{CallID: c.ID, Name: c.Name, IsError: failed[c.ID],
						Content: append([]model.Part{model.TextPart(m.Text)}, imageParts(m.Images)...)}
				}
			}
			if !isOpen {
				tell()
				user("Output of a command the user ran:\n" + m.Text)
			}
		}
	}
	flush()
	tell()
	keepNewestImages(msgs, s.cfg.Images.Keep)
	return msgs, nil
}

// subagentNotice is how the model learns a background subagent ended.
func subagentNotice(f store.SubagentFinished, task string) string {
	head := "Background subagent " + f.SubagentID
	if task != "" {
		head += " (task: " + firstLine(task, 80) + ")"
	}
	switch {
	case f.Killed:
		return head + " was " + killedByUser + "; it gave no answer."
	case f.Error != "":
		return head + " failed: " + f.Error
	}
	return head + " finished. Its final answer:\n" + f.Result
}

// portNotice is how the model learns where the host reaches a monitor's
// listening port.
func portNotice(p store.MonitorPortExposed, command string) string {
	head := "Monitor " + p.MonitorID
	if command != "" {
		head += " (" + firstLine(command, 80) + ")"
	}
	return fmt.Sprintf("%s listens on port %d; it is reachable from the host at %s (open it with the browser tool).", head, p.Port, p.URL)
}

// taskResultID is the subagent a task_result call fetched, if it is one.
func taskResultID(c model.ToolCall) string {
	if c.Name != taskResultToolName {
		return ""
	}
	// The stored call's arguments, read as the model wrote them.
	var a taskResultArgs
	if json.Unmarshal(c.Args, &a) != nil {
		return ""
	}
	return strings.TrimSpace(a.ID)
}
