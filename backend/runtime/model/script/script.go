// Package script is a model.Provider that replays a recorded conversation
// from a JSON file (see Script for the format). It powers the built-in demo a
// new user sees with no model configured, and end-to-end tests that need a
// model without a network.
package script

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/runtime/model"
)

const name = model.KindScript

// Options tune replay.
type Options struct {
	// DeltaDelay overrides the file's delta_delay_ms when > 0.
	DeltaDelay time.Duration
	// NoDelay streams without pauses whatever the file says (tests).
	NoDelay bool
	// Label is what Model() reports; default the script's name.
	Label string
}

// Provider replays one Script. It keeps no state between calls: the turn is
// chosen from the request, so one Provider serves any number of sessions.
type Provider struct {
	script *Script
	delay  time.Duration
	label  string
}

// New builds a provider for a parsed script.
func New(s *Script, opts Options) *Provider {
	delay := time.Duration(s.DeltaDelayMS) * time.Millisecond
	if opts.DeltaDelay > 0 {
		delay = opts.DeltaDelay
	}
	if opts.NoDelay {
		delay = 0
	}
	label := opts.Label
	if label == "" {
		label = s.Name
	}
	if label == "" {
		label = "script"
	}
	return &Provider{script: s, delay: delay, label: label}
}

// Open loads a script file and builds its provider.
func Open(path string, opts Options) (*Provider, error) {
	s, err := Load(path)
	if err != nil {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "cannot load script", Err: err}
	}
	if opts.Label == "" {
		opts.Label = path
	}
	return New(s, opts), nil
}

// Name implements model.Provider.
func (p *Provider) Name() string { return name }

// Model implements model.Provider: the script's label.
func (p *Provider) Model() string { return p.label }

// Script returns the parsed script.
func (p *Provider) Script() *Script { return p.script }

// Stream implements model.Provider: it replays turn k for a request that
// holds k assistant messages, after checking that every call of turn k-1
// got a result and that the results meet their expectations.
func (p *Provider) Stream(ctx context.Context, req model.Request) (model.Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := req.Validate(); err != nil {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "invalid request", Err: err}
	}
	k := 0
	for _, m := range req.Messages {
		if m.Role == model.RoleAssistant {
			k++
		}
	}
	if k > 0 && k <= len(p.script.Turns) {
		if err := checkResults(p.script.Turns[k-1], req.Messages); err != nil {
			return nil, err
		}
	}
	var turn Turn
	switch {
	case k < len(p.script.Turns):
		turn = p.script.Turns[k]
	case p.script.OnEnd != "":
		turn = Turn{Text: p.script.OnEnd}
	default:
		return nil, &model.Error{Provider: name, Kind: model.ErrScriptMismatch,
			Message: fmt.Sprintf("script %s has %d turns and all were used", p.label, len(p.script.Turns))}
	}
	return &stream{ctx: ctx, events: turnEvents(turn, req), delay: p.delay}, nil
}

// checkResults looks at the tool results after the last assistant message.
func checkResults(prev Turn, msgs []model.Message) error {
	if len(prev.ToolCalls) == 0 {
		return nil
	}
	last := -1
	for i, m := range msgs {
		if m.Role == model.RoleAssistant {
			last = i
		}
	}
	got := map[string]model.ToolResult{}
	for _, m := range msgs[last+1:] {
		for _, r := range m.Results {
			got[r.CallID] = r
		}
	}
	for _, c := range prev.ToolCalls {
		r, ok := got[c.ID]
		if !ok {
			return &model.Error{Provider: name, Kind: model.ErrScriptMismatch,
				Message: fmt.Sprintf("no tool result came back for call %s (%s)", c.ID, c.Name)}
		}
		if c.Expect == nil {
			continue
		}
		if c.Expect.IsError != nil && *c.Expect.IsError != r.IsError {
			return &model.Error{Provider: name, Kind: model.ErrScriptMismatch,
				Message: fmt.Sprintf("call %s (%s): result is_error=%v, script expects %v: %s", c.ID, c.Name, r.IsError, *c.Expect.IsError, model.JoinText(r.Content))}
		}
		if c.Expect.Contains != "" && !strings.Contains(model.JoinText(r.Content), c.Expect.Contains) {
			return &model.Error{Provider: name, Kind: model.ErrScriptMismatch,
				Message: fmt.Sprintf("call %s (%s): result does not contain %q: %s", c.ID, c.Name, c.Expect.Contains, model.JoinText(r.Content))}
		}
	}
	return nil
}

// turnEvents renders a turn as the events a real model would stream: text in
// word-sized deltas, each call's arguments in small fragments.
func turnEvents(t Turn, req model.Request) []model.Event {
	var evs []model.Event
	for _, w := range chunkWords(t.Text) {
		evs = append(evs, model.Event{Type: model.EventTextDelta, Text: w})
	}
	for i, c := range t.ToolCalls {
		evs = append(evs, model.Event{Type: model.EventToolCallStart, Index: i, CallID: c.ID, Name: c.Name})
		for _, frag := range chunkBytes(string(c.Args), 16) {
			evs = append(evs, model.Event{Type: model.EventToolCallDelta, Index: i, ArgsDelta: frag})
		}
		call := model.ToolCall{ID: c.ID, Name: c.Name, Args: append([]byte(nil), c.Args...)}
		evs = append(evs, model.Event{Type: model.EventToolCallDone, Index: i, Call: &call})
	}
	u := estimateUsage(t, req)
	evs = append(evs, model.Event{Type: model.EventUsage, Usage: &u})
	stop := model.StopEndTurn
	if len(t.ToolCalls) > 0 {
		stop = model.StopToolUse
	}
	return append(evs, model.Event{Type: model.EventStop, StopReason: stop})
}

// estimateUsage uses the file's numbers, else about four bytes a token, so
// the UI's counters move as they would with a real model.
func estimateUsage(t Turn, req model.Request) model.Usage {
	if t.Usage != nil {
		return model.Usage{InputTokens: t.Usage.InputTokens, OutputTokens: t.Usage.OutputTokens}
	}
	in := 0
	for _, m := range req.Messages {
		in += len(model.JoinText(m.Content))
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Args)
		}
		for _, r := range m.Results {
			in += len(model.JoinText(r.Content))
		}
	}
	out := len(t.Text)
	for _, c := range t.ToolCalls {
		out += len(c.Name) + len(c.Args)
	}
	return model.Usage{InputTokens: int64(in+3) / 4, OutputTokens: int64(out+3) / 4}
}

// chunkWords splits text after each run of spaces, keeping every byte.
func chunkWords(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, " \n")
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}

// chunkBytes splits s into pieces of about n bytes without cutting a rune.
func chunkBytes(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

type stream struct {
	ctx    context.Context
	events []model.Event
	delay  time.Duration
	sent   int
	err    error
}

func (s *stream) Recv() (model.Event, error) {
	if s.err != nil {
		return model.Event{}, s.err
	}
	if err := s.ctx.Err(); err != nil {
		s.err = fmt.Errorf("%s: %w", name, err)
		return model.Event{}, s.err
	}
	if s.sent >= len(s.events) {
		s.err = io.EOF
		return model.Event{}, io.EOF
	}
	if s.delay > 0 && s.sent > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-s.ctx.Done():
			t.Stop()
			s.err = fmt.Errorf("%s: %w", name, s.ctx.Err())
			return model.Event{}, s.err
		case <-t.C:
		}
	}
	ev := s.events[s.sent]
	s.sent++
	return ev, nil
}

func (s *stream) Close() error { return nil }
