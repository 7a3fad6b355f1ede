package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// turn is the work running for a session: one user message's loop.
type turn struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// ErrBusy is returned when a session already runs a turn.
var ErrBusy = errors.New("a turn is already running in this session: wait or cancel it")

// ErrArchived refuses a message to an archived session.
var ErrArchived = errors.New("this session is archived: restore it to continue")

// SendMessage starts a turn and returns at once; its progress arrives as
// pushes. "/plan" toggles the freeze; "!cmd" runs shell.exec through the
// gate without a model.
func (s *Service) SendMessage(ctx context.Context, sessionID, text string) error {
	_, err := s.start(ctx, sessionID, text)
	return err
}

// Run is SendMessage that waits for the turn to end and returns its error.
func (s *Service) Run(ctx context.Context, sessionID, text string) error {
	t, err := s.start(ctx, sessionID, text)
	if err != nil || t == nil {
		return err
	}
	select {
	case <-t.done:
		return t.err
	case <-ctx.Done():
		_ = s.Cancel(context.WithoutCancel(ctx), sessionID)
		<-t.done
		return ctx.Err()
	}
}

// Retry runs the model again on the conversation as it stands, without a
// new user message: the "Retry" of a turn that ended in a model error (a
// provider outage, a rate limit). It refuses while a turn is running.
func (s *Service) Retry(ctx context.Context, sessionID string) error {
	ss, err := s.st.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	if ss.Archived {
		return ErrArchived
	}
	if s.current().provider == nil {
		return ErrNoModel
	}
	_, err = s.launch(sessionID, func(ctx context.Context) error {
		_, err := s.loop(ctx, sessionID, 0)
		return err
	})
	return err
}

func (s *Service) start(ctx context.Context, sessionID, text string) (*turn, error) {
	ss, err := s.st.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if ss.Archived {
		return nil, ErrArchived
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return nil, errors.New("the message is empty")
	}
	if trimmed == "/plan" {
		_, err := s.SetPlanning(ctx, sessionID, !ss.Planning)
		return nil, err
	}
	var run func(ctx context.Context) error
	if cmd, ok := strings.CutPrefix(trimmed, "!"); ok {
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			return nil, errors.New("! needs a command")
		}
		run = func(ctx context.Context) error { return s.bang(ctx, sessionID, trimmed, cmd) }
	} else {
		if s.current().provider == nil {
			return nil, ErrNoModel
		}
		run = func(ctx context.Context) error {
			if _, err := s.st.Append(ctx, sessionID, store.AnyVersion, store.MessageAppended{MessageID: s.newID(), Role: "user", Text: text}); err != nil {
				return err
			}
			_, err := s.loop(ctx, sessionID, 0)
			return err
		}
	}
	return s.launch(sessionID, run)
}

// launch runs work as the session's turn: one at a time per session,
// cancellable, its errors noted in the transcript.
func (s *Service) launch(sessionID string, run func(ctx context.Context) error) (*turn, error) {
	s.mu.Lock()
	if _, busy := s.turns[sessionID]; busy {
		s.mu.Unlock()
		return nil, ErrBusy
	}
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		return nil, errors.New("the service is closed")
	}
	tctx, cancel := context.WithCancel(s.ctx)
	t := &turn{cancel: cancel, done: make(chan struct{})}
	s.turns[sessionID] = t
	s.wg.Add(1)
	s.mu.Unlock()
	s.touch(sessionID)
	go func() {
		defer s.wg.Done()
		t.err = run(tctx)
		if t.err != nil && tctx.Err() == nil {
			s.note(sessionID, "error: "+t.err.Error())
		} else if tctx.Err() != nil && s.ctx.Err() == nil {
			s.note(sessionID, "the turn was cancelled")
		}
		cancel()
		s.mu.Lock()
		delete(s.turns, sessionID)
		s.mu.Unlock()
		close(t.done)
		s.touch(sessionID)
	}()
	return t, nil
}

// note records a runtime message (errors, cancellation) for the window.
func (s *Service) note(sessionID, text string) {
	_, _ = s.st.Append(context.WithoutCancel(s.ctx), sessionID, store.AnyVersion, store.MessageAppended{MessageID: s.newID(), Role: "system", Text: text})
}

// Cancel stops a session's turn: pending asks are denied, running tools
// are killed (their context ends), foreground subagents stop with it.
func (s *Service) Cancel(ctx context.Context, sessionID string) error {
	if _, err := s.st.Session(ctx, sessionID); err != nil {
		return err
	}
	s.stopSession(sessionID)
	return nil
}

func (s *Service) stopSession(sessionID string) {
	s.mu.Lock()
	t := s.turns[sessionID]
	var kids []string
	for id, k := range s.kids {
		if k.parent == sessionID && !k.background {
			kids = append(kids, id)
		}
	}
	s.mu.Unlock()
	for _, id := range append(kids, sessionID) {
		s.gate.Cancel(id, "the turn was cancelled")
	}
	if t != nil {
		t.cancel()
	}
}

// loop runs model turns until the model stops; it returns the last
// assistant text.
func (s *Service) loop(ctx context.Context, sessionID string, depth int) (string, error) {
	prov := s.current().provider
	if prov == nil {
		return "", ErrNoModel
	}
	for step := 0; step < s.cfg.MaxSteps; step++ {
		// Every step: MCP tools come and go (tools/list_changed, trust).
		specs := s.specs(ctx, sessionID, depth)
		hist, err := s.history(ctx, sessionID)
		if err != nil {
			return "", err
		}
		req := model.Request{Messages: append([]model.Message{model.SystemMessage(s.cfg.System)}, hist...), Tools: specs}
		stream, err := prov.Stream(ctx, req)
		if err != nil {
			return "", fmt.Errorf("model: %w", err)
		}
		resp, err := model.Collect(stream, func(ev model.Event) {
			if ev.Type == model.EventTextDelta {
				s.hub.publish(Push{Type: PushDelta, SessionID: sessionID, Text: ev.Text})
			}
		})
		if err != nil {
			return "", fmt.Errorf("model: %w", err)
		}
		msg := resp.Message
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				msg.ToolCalls[i].ID = s.newID()
			}
		}
		calls := make([]store.ToolCall, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			calls[i] = store.ToolCall{ID: c.ID, Name: c.Name, Args: c.Args}
		}
		am := store.MessageAppended{MessageID: s.newID(), Role: "assistant", Text: msg.Text(), ToolCalls: calls,
			Model: modelName(prov)}
		if _, err := s.st.Append(context.WithoutCancel(ctx), sessionID, store.AnyVersion, am); err != nil {
			return "", err
		}
		if len(msg.ToolCalls) == 0 {
			return msg.Text(), nil
		}
		if err := s.runCalls(ctx, sessionID, msg.ToolCalls, depth); err != nil {
			return "", err
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
	}
	s.note(sessionID, fmt.Sprintf("stopped after %d model turns without an end", s.cfg.MaxSteps))
	return "", nil
}

func (s *Service) specs(ctx context.Context, sessionID string, depth int) []model.ToolSpec {
	var out []model.ToolSpec
	for _, t := range append(s.tools.List(), s.mcpTools(ctx, sessionID)...) {
		if (t.Name() == taskToolName || t.Name() == taskResultToolName) && depth >= maxTaskDepth {
			continue
		}
		out = append(out, model.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()})
	}
	return out
}

// runCalls runs one model turn's calls: consecutive calls that only read
// run together; everything else runs one at a time, in order, so asks
// reach the human one by one and a write is never raced by its reads.
// Each call is prepared once (arguments decoded, effects computed): the
// grouping reads what the gate then decides on.
func (s *Service) runCalls(ctx context.Context, sessionID string, calls []model.ToolCall, depth int) error {
	preps := make([]*gate.Prepared, len(calls))
	for i, c := range calls {
		if t, ok := s.tool(ctx, sessionID, c.Name); ok {
			p, err := s.gate.Prepare(ctx, s.request(sessionID, c.ID, t, c.Args))
			if err != nil {
				return err
			}
			preps[i] = p
		}
	}
	readOnly := func(i int) bool { return preps[i] == nil || preps[i].ReadOnly() }
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && readOnly(j) {
			j++
		}
		if j == i {
			j = i + 1
		}
		var wg sync.WaitGroup
		errs := make([]error, j-i)
		for k := i; k < j; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				errs[k-i] = s.runPrepared(ctx, sessionID, calls[k], preps[k])
			}(k)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// runCall takes one call through the gate and records its result message.
func (s *Service) runCall(ctx context.Context, sessionID string, c model.ToolCall, depth int) error {
	var p *gate.Prepared
	if t, ok := s.tool(ctx, sessionID, c.Name); ok {
		var err error
		if p, err = s.gate.Prepare(ctx, s.request(sessionID, c.ID, t, c.Args)); err != nil {
			return err
		}
	}
	return s.runPrepared(ctx, sessionID, c, p)
}

// runPrepared runs a prepared call (nil: an unknown tool, answered with an
// error) and records its result message.
func (s *Service) runPrepared(ctx context.Context, sessionID string, c model.ToolCall, p *gate.Prepared) error {
	var res tools.Result
	if p == nil {
		res = tools.ErrorResult(fmt.Sprintf("unknown tool %q", c.Name))
	} else {
		out, err := s.gate.Run(ctx, p)
		if err != nil {
			return err
		}
		if s.ctx.Err() != nil && out.Invoked {
			// Shutting down while it ran: record no result, so the
			// call reads as interrupted. (A denial, such as a
			// headless ask's no-approver at shutdown, is its result.)
			return s.ctx.Err()
		}
		res = out.Result
	}
	_, err := s.st.Append(context.WithoutCancel(ctx), sessionID, store.AnyVersion, store.MessageAppended{
		MessageID: s.newID(), Role: "tool", ToolCallID: c.ID, Text: resultText(res), Images: s.resultImages(res)})
	return err
}

// output records streamed tool output; monitors report on their own
// streams ("monitor/<id>/<stream>") long after the call returned.
func (s *Service) output(sessionID, callID string) func(stream string, chunk []byte) {
	return func(stream string, chunk []byte) {
		ctx := context.WithoutCancel(s.ctx)
		if rest, ok := strings.CutPrefix(stream, "monitor/"); ok {
			id, sub, _ := strings.Cut(rest, "/")
			_, _ = s.st.Append(ctx, sessionID, store.AnyVersion, store.MonitorEvent{MonitorID: id, Stream: sub, Line: string(chunk)})
			return
		}
		_, _ = s.st.Append(ctx, sessionID, store.AnyVersion, store.ToolOutput{CallID: callID, Stream: stream, Chunk: string(chunk)})
	}
}

// logTo appends what a tool records about work that outlives its call
// (a monitor's start and end) to the session's log.
func (s *Service) logTo(sessionID string) func(store.Event) {
	return func(ev store.Event) {
		_, _ = s.st.Append(context.WithoutCancel(s.ctx), sessionID, store.AnyVersion, ev)
	}
}

func resultText(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
