package model

import (
	"encoding/json"
	"fmt"
)

// Role says who a message is from.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the results of one assistant turn's tool calls.
	RoleTool Role = "tool"
)

// PartType is the kind of a content part.
type PartType string

const (
	PartText  PartType = "text"
	PartImage PartType = "image"
)

// Part is one piece of message or tool-result content.
type Part struct {
	Type     PartType `json:"type"`
	Text     string   `json:"text,omitempty"`
	MimeType string   `json:"mime_type,omitempty"` // images: image/png, image/jpeg, image/gif, image/webp
	Data     []byte   `json:"data,omitempty"`      // images: raw bytes
}

// TextPart is a text content part.
func TextPart(s string) Part { return Part{Type: PartText, Text: s} }

// ImagePart is an image content part.
func ImagePart(mimeType string, data []byte) Part {
	return Part{Type: PartImage, MimeType: mimeType, Data: data}
}

// ToolCall is one tool invocation requested by the model. Name is always the
// internal Warden name (e.g. "shell.exec"), never the wire form.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"` // a complete JSON value, "{}" when the model sent none
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"` // internal tool name; informative
	Content []Part `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Message is one entry of the conversation.
//
// System and user messages use Content; assistant messages use Content (text)
// and ToolCalls; tool messages use Results, one per call of the preceding
// assistant message.
type Message struct {
	Role      Role         `json:"role"`
	Content   []Part       `json:"content,omitempty"`
	ToolCalls []ToolCall   `json:"tool_calls,omitempty"`
	Results   []ToolResult `json:"results,omitempty"`
}

// SystemMessage, UserMessage and AssistantMessage build plain text messages.
func SystemMessage(text string) Message {
	return Message{Role: RoleSystem, Content: []Part{TextPart(text)}}
}

// UserMessage builds a user message of one text part.
func UserMessage(text string) Message {
	return Message{Role: RoleUser, Content: []Part{TextPart(text)}}
}

// AssistantMessage builds an assistant message of text and tool calls.
func AssistantMessage(text string, calls ...ToolCall) Message {
	m := Message{Role: RoleAssistant, ToolCalls: calls}
	if text != "" {
		m.Content = []Part{TextPart(text)}
	}
	return m
}

// ToolResultsMessage builds the message that answers an assistant turn.
func ToolResultsMessage(results ...ToolResult) Message {
	return Message{Role: RoleTool, Results: results}
}

// Text joins the text parts of the message.
func (m Message) Text() string { return JoinText(m.Content) }

// JoinText concatenates the text parts, ignoring images.
func JoinText(parts []Part) string {
	var n int
	for _, p := range parts {
		n += len(p.Text)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		if p.Type == PartText {
			b = append(b, p.Text...)
		}
	}
	return string(b)
}

// ToolSpec describes one tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"` // internal name
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"` // JSON schema of the arguments (an object schema)
}

// Request is one model turn's input.
type Request struct {
	Messages []Message
	Tools    []ToolSpec
	// MaxTokens caps the reply; 0 means the provider's configured default.
	MaxTokens int
}

// Validate reports structural problems a provider would otherwise send to
// the API and get back as an opaque 400.
func (r Request) Validate() error {
	if len(r.Messages) == 0 {
		return fmt.Errorf("%w: request has no messages", ErrBadRequest)
	}
	seen := make(map[string]bool, len(r.Tools))
	for i, t := range r.Tools {
		if t.Name == "" {
			return fmt.Errorf("%w: tool %d has no name", ErrBadRequest, i)
		}
		if seen[t.Name] {
			return fmt.Errorf("%w: tool %q listed twice", ErrBadRequest, t.Name)
		}
		seen[t.Name] = true
		if len(t.Schema) > 0 && !json.Valid(t.Schema) {
			return fmt.Errorf("%w: tool %q: schema is not valid JSON", ErrBadRequest, t.Name)
		}
	}
	for i, m := range r.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		case RoleTool:
			if len(m.Results) == 0 {
				return fmt.Errorf("%w: message %d: tool message without results", ErrBadRequest, i)
			}
		default:
			return fmt.Errorf("%w: message %d: unknown role %q", ErrBadRequest, i, m.Role)
		}
		for _, c := range m.ToolCalls {
			if len(c.Args) > 0 && !json.Valid(c.Args) {
				return fmt.Errorf("%w: message %d: tool call %s: arguments are not valid JSON", ErrBadRequest, i, c.ID)
			}
		}
	}
	return nil
}
