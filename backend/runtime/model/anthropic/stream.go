package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/warden-dev/warden/backend/runtime/model"
)

// stream translates Messages API stream events into model events. One SSE
// event can yield several model events, so they queue in pending.
type stream struct {
	ctx      context.Context
	sdk      *ssestream.Stream[sdk.MessageStreamEventUnion]
	names    *model.NameMap
	model    string
	pending  []model.Event
	blocks   map[int64]*toolBlock // content block index → tool call
	calls    int                  // tool calls seen so far: the model.Event Index
	usage    model.Usage
	stop     model.StopReason
	finished bool
	err      error
}

func newStream(ctx context.Context, st *ssestream.Stream[sdk.MessageStreamEventUnion], names *model.NameMap, modelName string) *stream {
	return &stream{ctx: ctx, sdk: st, names: names, model: modelName, blocks: map[int64]*toolBlock{}}
}

type toolBlock struct {
	index   int
	id      string
	name    string
	args    strings.Builder
	initial json.RawMessage // input given whole in content_block_start, if any
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
		if s.finished {
			s.err = io.EOF
			continue
		}
		if !s.sdk.Next() {
			s.err = s.endError(s.sdk.Err())
			continue
		}
		if err := s.handle(s.sdk.Current()); err != nil {
			s.err = err
		}
	}
}

// endError explains why the SSE stream stopped before message_stop.
func (s *stream) endError(err error) error {
	if err == nil {
		if ctxErr := s.ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s: %w", name, ctxErr)
		}
		return model.ProtocolError(name, "stream ended before message_stop", nil)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return model.ProtocolError(name, "malformed stream event", err)
	}
	return classify(s.ctx, s.model, err, true)
}

func (s *stream) Close() error { return s.sdk.Close() }

func (s *stream) emit(ev model.Event) { s.pending = append(s.pending, ev) }

func (s *stream) handle(ev sdk.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		s.usage = model.Usage{
			InputTokens:      u.InputTokens,
			OutputTokens:     u.OutputTokens,
			CacheReadTokens:  u.CacheReadInputTokens,
			CacheWriteTokens: u.CacheCreationInputTokens,
		}
	case "content_block_start":
		cb := ev.ContentBlock
		switch cb.Type {
		case "text":
			if cb.Text != "" {
				s.emit(model.Event{Type: model.EventTextDelta, Text: cb.Text})
			}
		case "tool_use":
			if cb.ID == "" || cb.Name == "" {
				return model.ProtocolError(name, fmt.Sprintf("tool_use block %d without id or name", ev.Index), nil)
			}
			if _, dup := s.blocks[ev.Index]; dup {
				return model.ProtocolError(name, fmt.Sprintf("content block %d started twice", ev.Index), nil)
			}
			internal, _ := s.names.Internal(cb.Name)
			b := &toolBlock{index: s.calls, id: cb.ID, name: internal}
			// The input normally streams as input_json_delta after an empty
			// {}; keep a non-empty one in case no deltas follow.
			if raw := cb.JSON.Input.Raw(); raw != "" && raw != "{}" && raw != "null" {
				b.initial = json.RawMessage(raw)
			}
			s.calls++
			s.blocks[ev.Index] = b
			s.emit(model.Event{Type: model.EventToolCallStart, Index: b.index, CallID: b.id, Name: b.name})
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			if ev.Delta.Text != "" {
				s.emit(model.Event{Type: model.EventTextDelta, Text: ev.Delta.Text})
			}
		case "input_json_delta":
			b, ok := s.blocks[ev.Index]
			if !ok {
				return model.ProtocolError(name, fmt.Sprintf("input_json_delta for block %d, which is not a tool_use block", ev.Index), nil)
			}
			if ev.Delta.PartialJSON != "" {
				b.args.WriteString(ev.Delta.PartialJSON)
				s.emit(model.Event{Type: model.EventToolCallDelta, Index: b.index, ArgsDelta: ev.Delta.PartialJSON})
			}
		}
	case "content_block_stop":
		b, ok := s.blocks[ev.Index]
		if !ok {
			return nil
		}
		delete(s.blocks, ev.Index)
		args := json.RawMessage(b.args.String())
		if len(args) == 0 {
			args = b.initial
		}
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if !json.Valid(args) {
			return model.ProtocolError(name, fmt.Sprintf("tool call %s (%s): arguments are not valid JSON: %.200s", b.id, b.name, args), nil)
		}
		s.emit(model.Event{Type: model.EventToolCallDone, Index: b.index, Call: &model.ToolCall{ID: b.id, Name: b.name, Args: args}})
	case "message_delta":
		s.stop = stopReason(ev.Delta.StopReason)
		// message_delta usage is cumulative; input counts appear here only
		// on some API versions, so keep message_start's when absent.
		if ev.Usage.InputTokens > 0 {
			s.usage.InputTokens = ev.Usage.InputTokens
		}
		if ev.Usage.CacheReadInputTokens > 0 {
			s.usage.CacheReadTokens = ev.Usage.CacheReadInputTokens
		}
		if ev.Usage.CacheCreationInputTokens > 0 {
			s.usage.CacheWriteTokens = ev.Usage.CacheCreationInputTokens
		}
		s.usage.OutputTokens = ev.Usage.OutputTokens
		u := s.usage
		s.emit(model.Event{Type: model.EventUsage, Usage: &u})
	case "message_stop":
		if len(s.blocks) > 0 {
			return model.ProtocolError(name, "message_stop with a tool_use block still open", nil)
		}
		stop := s.stop
		if stop == "" {
			stop = model.StopOther
		}
		s.emit(model.Event{Type: model.EventStop, StopReason: stop})
		s.finished = true
	}
	return nil
}

func stopReason(r sdk.StopReason) model.StopReason {
	switch r {
	case sdk.StopReasonEndTurn:
		return model.StopEndTurn
	case sdk.StopReasonToolUse:
		return model.StopToolUse
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return model.StopMaxTokens
	case sdk.StopReasonStopSequence:
		return model.StopSequence
	case sdk.StopReasonRefusal:
		return model.StopRefusal
	}
	return model.StopOther
}
