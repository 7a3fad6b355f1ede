package model

import (
	"context"
)

// EventType names what an Event carries.
type EventType string

const (
	// EventTextDelta: Text holds the next piece of assistant text.
	EventTextDelta EventType = "text_delta"
	// EventToolCallStart: Index, CallID and Name (internal) of a new call.
	EventToolCallStart EventType = "tool_call_start"
	// EventToolCallDelta: ArgsDelta is the next fragment of the JSON
	// arguments of call Index; fragments are not valid JSON on their own.
	EventToolCallDelta EventType = "tool_call_delta"
	// EventToolCallDone: Call is complete, with the whole JSON arguments.
	EventToolCallDone EventType = "tool_call_done"
	// EventUsage: Usage holds the running totals for this response; a later
	// usage event replaces an earlier one.
	EventUsage EventType = "usage"
	// EventStop: StopReason says why the model stopped. It is the last
	// event before io.EOF.
	EventStop EventType = "stop"
)

// StopReason is why a response ended, normalised across providers.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopSequence  StopReason = "stop_sequence"
	StopRefusal   StopReason = "refusal"
	StopOther     StopReason = "other"
)

// Usage counts tokens of one response.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Add sums two usages, for per-session totals.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
	}
}

// Event is one streamed item of a response. Which fields are set depends on
// Type (see the EventType constants).
type Event struct {
	Type       EventType  `json:"type"`
	Text       string     `json:"text,omitempty"`
	Index      int        `json:"index,omitempty"` // tool call position within the response
	CallID     string     `json:"call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	ArgsDelta  string     `json:"args_delta,omitempty"`
	Call       *ToolCall  `json:"call,omitempty"`
	Usage      *Usage     `json:"usage,omitempty"`
	StopReason StopReason `json:"stop_reason,omitempty"`
}

// Stream yields the events of one response.
//
// Recv returns the next event, io.EOF after the stop event, or an error
// (an *Error, or the context's error after cancellation). After an error
// every later Recv returns the same error. Close releases the connection and
// may be called at any time, more than once.
type Stream interface {
	Recv() (Event, error)
	Close() error
}

// Provider is one configured model endpoint. Providers are safe for
// concurrent use; each Stream belongs to one goroutine.
type Provider interface {
	// Name is the provider kind: "anthropic", "openai", "script".
	Name() string
	// Model is the model identifier the provider sends (or the script path).
	Model() string
	// Stream starts one response. Errors before the first byte (bad key,
	// unknown model, exhausted retries) come back here; later ones from Recv.
	Stream(ctx context.Context, req Request) (Stream, error)
}
