package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/warden-dev/warden/backend/runtime/model"
)

// stream translates chat.completion.chunk objects into model events.
//
// Tool calls arrive as deltas keyed by index: the first carries id and
// name, later ones argument fragments. Chat completions has no "call done"
// marker, so calls complete when finish_reason arrives. Usage comes in a
// last chunk with no choices (stream_options.include_usage), so usage and
// stop are emitted at the end of the stream.
type stream struct {
	ctx      context.Context
	sdk      *ssestream.Stream[sdk.ChatCompletionChunk]
	names    *model.NameMap
	model    string
	pending  []model.Event
	calls    map[int64]*toolCall // wire index → call
	ncalls   int
	usage    *model.Usage
	stop     model.StopReason
	finished bool // finish_reason seen
	ended    bool // stop event queued
	err      error
}

func newStream(ctx context.Context, st *ssestream.Stream[sdk.ChatCompletionChunk], names *model.NameMap, modelName string) *stream {
	return &stream{ctx: ctx, sdk: st, names: names, model: modelName, calls: map[int64]*toolCall{}}
}

type toolCall struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

func (s *stream) Recv() (model.Event, error) {
	for {
		if len(s.pending) > 0 {
			ev := s.pending[0]
			s.pending = s.pending[1:]
			return ev, nil
		}
		if s.err != nil {
			return model.Event{}, s.err
		}
		if s.ended {
			s.err = io.EOF
			continue
		}
		if !s.sdk.Next() {
			s.err = s.end(s.sdk.Err())
			continue
		}
		if err := s.handle(s.sdk.Current()); err != nil {
			s.err = err
		}
	}
}

func (s *stream) Close() error { return s.sdk.Close() }

func (s *stream) emit(ev model.Event) { s.pending = append(s.pending, ev) }

// end runs when the SSE stream stops: a clean end ([DONE] or EOF) after a
// finish_reason queues usage and stop; anything else is an error.
func (s *stream) end(err error) error {
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", name, ctxErr)
	}
	if err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			return model.ProtocolError(name, "malformed stream chunk", err)
		}
		return classify(s.ctx, s.model, err)
	}
	if !s.finished {
		return model.ProtocolError(name, "stream ended without a finish_reason", nil)
	}
	if s.usage != nil {
		s.emit(model.Event{Type: model.EventUsage, Usage: s.usage})
	}
	s.emit(model.Event{Type: model.EventStop, StopReason: s.stop})
	s.ended = true
	return nil
}

func (s *stream) handle(ch sdk.ChatCompletionChunk) error {
	if ch.JSON.Usage.Valid() {
		s.usage = &model.Usage{
			InputTokens:     ch.Usage.PromptTokens,
			OutputTokens:    ch.Usage.CompletionTokens,
			CacheReadTokens: ch.Usage.PromptTokensDetails.CachedTokens,
		}
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // n=1 is all Warden asks for
		}
		if c.Delta.Content != "" {
			s.emit(model.Event{Type: model.EventTextDelta, Text: c.Delta.Content})
		}
		for _, tc := range c.Delta.ToolCalls {
			if err := s.toolDelta(tc); err != nil {
				return err
			}
		}
		if c.FinishReason != "" {
			if err := s.finish(c.FinishReason); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *stream) toolDelta(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) error {
	if s.finished {
		return model.ProtocolError(name, "tool call delta after finish_reason", nil)
	}
	call, ok := s.calls[tc.Index]
	if !ok {
		if tc.Function.Name == "" {
			return model.ProtocolError(name, fmt.Sprintf("tool call %d starts without a function name", tc.Index), nil)
		}
		id := tc.ID
		if id == "" {
			// Some compatible servers omit ids; the loop needs one to pair
			// the result with the call.
			id = fmt.Sprintf("call_%d", s.ncalls)
		}
		internal, _ := s.names.Internal(tc.Function.Name)
		call = &toolCall{index: s.ncalls, id: id, name: internal}
		s.ncalls++
		s.calls[tc.Index] = call
		s.emit(model.Event{Type: model.EventToolCallStart, Index: call.index, CallID: call.id, Name: call.name})
	}
	if a := tc.Function.Arguments; a != "" {
		call.args.WriteString(a)
		s.emit(model.Event{Type: model.EventToolCallDelta, Index: call.index, ArgsDelta: a})
	}
	return nil
}

func (s *stream) finish(reason string) error {
	s.finished = true
	s.stop = stopReason(reason)
	open := make([]*toolCall, 0, len(s.calls))
	for _, c := range s.calls {
		open = append(open, c)
	}
	sort.Slice(open, func(i, j int) bool { return open[i].index < open[j].index })
	for _, c := range open {
		args := json.RawMessage(c.args.String())
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if !json.Valid(args) {
			return model.ProtocolError(name, fmt.Sprintf("tool call %s (%s): arguments are not valid JSON: %.200s", c.id, c.name, args), nil)
		}
		s.emit(model.Event{Type: model.EventToolCallDone, Index: c.index, Call: &model.ToolCall{ID: c.id, Name: c.name, Args: args}})
	}
	clear(s.calls)
	return nil
}

func stopReason(r string) model.StopReason {
	switch r {
	case "stop":
		return model.StopEndTurn
	case "tool_calls", "function_call":
		return model.StopToolUse
	case "length":
		return model.StopMaxTokens
	case "content_filter":
		return model.StopRefusal
	}
	return model.StopOther
}
