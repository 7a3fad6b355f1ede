package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// compileSchema prepares a server's input schema for validation. A schema
// that cannot be compiled (a remote $ref, say) makes its tool uncallable:
// arguments Warden cannot check are not sent.
func compileSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the server's input schema is not a JSON schema: %w", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the server's input schema cannot be used: %w", err)
	}
	return resolved, nil
}

// decodeArgs parses a call's arguments: a JSON object, or nothing.
func decodeArgs(args json.RawMessage) (map[string]any, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(trimmed, &m); err != nil || m == nil {
		return nil, fmt.Errorf("arguments must be a JSON object")
	}
	return m, nil
}

// validateArgs checks arguments against the tool's schema before anything
// is sent to the server.
func (ti *toolInfo) validateArgs(args json.RawMessage) (map[string]any, error) {
	m, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	if ti.schemaErr != nil {
		return nil, ti.schemaErr
	}
	if err := ti.validator.Validate(m); err != nil {
		return nil, fmt.Errorf("arguments do not match the tool's input schema: %w", err)
	}
	return m, nil
}
