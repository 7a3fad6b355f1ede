package modeltest

import (
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/script"
)

// Tool names go out in model.SafeName form, which is what the providers'
// name maps produce for any set of names without collisions.

func usageOf(t script.Turn) (in, out int64) {
	if t.Usage != nil {
		return t.Usage.InputTokens, t.Usage.OutputTokens
	}
	out = int64(len(t.Text)+3) / 4
	for _, c := range t.ToolCalls {
		out += int64(len(c.Args)+3) / 4
	}
	return 10, out
}

func anthropicEvents(t script.Turn) []sse {
	in, out := usageOf(t)
	evs := []sse{{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_modeltest", "type": "message", "role": "assistant", "model": "modeltest", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": 1},
	}}}}
	idx := 0
	if t.Text != "" {
		evs = append(evs, sse{"content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}}})
		for _, w := range words(t.Text) {
			evs = append(evs, sse{"content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": w}}})
		}
		evs = append(evs, sse{"content_block_stop", map[string]any{"type": "content_block_stop", "index": idx}})
		idx++
	}
	for _, c := range t.ToolCalls {
		evs = append(evs, sse{"content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": model.SafeName(c.Name), "input": map[string]any{}}}})
		for _, f := range fragments(string(c.Args), 12) {
			evs = append(evs, sse{"content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": f}}})
		}
		evs = append(evs, sse{"content_block_stop", map[string]any{"type": "content_block_stop", "index": idx}})
		idx++
	}
	stop := "end_turn"
	if len(t.ToolCalls) > 0 {
		stop = "tool_use"
	}
	return append(evs,
		sse{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out}}},
		sse{"message_stop", map[string]any{"type": "message_stop"}})
}

func openaiEvents(t script.Turn) []sse {
	in, out := usageOf(t)
	chunk := func(delta map[string]any, finish any) sse {
		return sse{"", map[string]any{"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 1741570283, "model": "modeltest",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}, "usage": nil}}
	}
	evs := []sse{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, w := range words(t.Text) {
		evs = append(evs, chunk(map[string]any{"content": w}, nil))
	}
	for i, c := range t.ToolCalls {
		evs = append(evs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": model.SafeName(c.Name), "arguments": ""}}}}, nil))
		for _, f := range fragments(string(c.Args), 12) {
			evs = append(evs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": f}}}}, nil))
		}
	}
	finish := "stop"
	if len(t.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	evs = append(evs, chunk(map[string]any{}, finish))
	evs = append(evs, sse{"", map[string]any{"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 1741570283, "model": "modeltest",
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}}})
	return append(evs, sse{"", "[DONE]"})
}
