package model

import (
	"errors"
	"fmt"
	"net/http"
)

// Sentinel kinds; every *Error matches exactly one with errors.Is.
var (
	ErrAuth          = errors.New("authentication failed")
	ErrModelNotFound = errors.New("model not found")
	ErrRateLimited   = errors.New("rate limited")
	ErrServer        = errors.New("server error")
	ErrBadRequest    = errors.New("bad request")
	ErrProtocol      = errors.New("protocol error")
	// ErrScriptMismatch: a script provider got a conversation its file did
	// not expect (a missing tool result, an unmet expectation, no turns left).
	ErrScriptMismatch = errors.New("script mismatch")
)

// Error is a provider failure with enough context to act on.
type Error struct {
	Provider string // "anthropic", "openai", "script"
	Kind     error  // one of the sentinels above
	Status   int    // HTTP status, 0 when there was none
	Message  string // what to tell the human
	Err      error  // the underlying cause, may be nil
}

func (e *Error) Error() string {
	s := e.Provider + ": " + e.Message
	// An HTTP failure's cause repeats the status and URL already in Message.
	if e.Err != nil && e.Status == 0 {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes both the kind and the cause to errors.Is / errors.As.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// HTTPError classifies a failed HTTP response. keyHint names where the key
// comes from (e.g. "ANTHROPIC_API_KEY") so a 401 says what to fix.
func HTTPError(provider, modelName, keyHint string, status int, serverMsg string, cause error) *Error {
	e := &Error{Provider: provider, Status: status, Err: cause}
	detail := ""
	if serverMsg != "" {
		detail = ": " + serverMsg
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = ErrAuth
		e.Message = fmt.Sprintf("authentication failed (%d): check %s%s", status, keyHint, detail)
	case status == http.StatusNotFound:
		e.Kind = ErrModelNotFound
		e.Message = fmt.Sprintf("model %q not found (404): check the model name and base URL%s", modelName, detail)
	case status == http.StatusTooManyRequests:
		e.Kind = ErrRateLimited
		e.Message = fmt.Sprintf("rate limited (429) after retries%s", detail)
	case status >= 500:
		e.Kind = ErrServer
		e.Message = fmt.Sprintf("server error (%d) after retries%s", status, detail)
	default:
		e.Kind = ErrBadRequest
		e.Message = fmt.Sprintf("request rejected (%d)%s", status, detail)
	}
	return e
}

// ProtocolError reports a stream the provider could not make sense of.
func ProtocolError(provider, msg string, cause error) *Error {
	return &Error{Provider: provider, Kind: ErrProtocol, Message: msg, Err: cause}
}
