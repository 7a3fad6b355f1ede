package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxFileSize bounds a script file; a replayed conversation is small.
const MaxFileSize = 8 << 20

// Script is a parsed script file. The format (JSON, unknown fields refused):
//
//	{
//	  "version": 1,                        // required, must be 1
//	  "name": "demo",                      // optional, shown as the model name
//	  "description": "...",                // optional
//	  "delta_delay_ms": 15,                // optional pause between streamed deltas
//	  "on_end": "No more turns.",          // optional reply once turns run out;
//	                                       // without it, running out is an error
//	  "turns": [                           // one per assistant response, in order
//	    {
//	      "text": "I'll list the files.",  // optional assistant text
//	      "tool_calls": [                  // optional; a turn needs text or calls
//	        {
//	          "id": "call_1",              // optional, default "script_<turn>_<n>"
//	          "name": "fs.list",           // internal tool name, required
//	          "args": {"path": "."},       // JSON object, default {}
//	          "expect": {                  // optional check of the result that
//	            "is_error": false,         // comes back before the next turn
//	            "contains": "README"
//	          }
//	        }
//	      ],
//	      "usage": {"input_tokens": 10, "output_tokens": 5}  // optional
//	    }
//	  ]
//	}
//
// Turn k answers the request that holds k assistant messages, so a resumed
// or retried conversation replays from the right place.
type Script struct {
	Version      int    `json:"version"`
	Name         string `json:"name,omitempty"`
	Description  string `json:"description,omitempty"`
	DeltaDelayMS int    `json:"delta_delay_ms,omitempty"`
	OnEnd        string `json:"on_end,omitempty"`
	Turns        []Turn `json:"turns"`
}

// Turn is one scripted assistant response.
type Turn struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []Call     `json:"tool_calls,omitempty"`
	Usage     *TurnUsage `json:"usage,omitempty"`
}

// Call is one scripted tool call.
type Call struct {
	ID     string          `json:"id,omitempty"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args,omitempty"`
	Expect *Expect         `json:"expect,omitempty"`
}

// Expect checks the tool result that comes back for a call.
type Expect struct {
	IsError  *bool  `json:"is_error,omitempty"`
	Contains string `json:"contains,omitempty"`
}

// TurnUsage overrides the estimated token counts of a turn.
type TurnUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Load reads and parses a script file.
func Load(path string) (*Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return s, nil
}

// Parse decodes and validates a script; call ids are filled in.
func Parse(data []byte) (*Script, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("script is larger than %d bytes", MaxFileSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("invalid script JSON: %w", err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid script JSON: content after the top-level object")
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *Script) validate() error {
	if s.Version != 1 {
		return fmt.Errorf("script version %d: only version 1 is known", s.Version)
	}
	if len(s.Turns) == 0 {
		return fmt.Errorf("script has no turns")
	}
	if s.DeltaDelayMS < 0 || s.DeltaDelayMS > 10_000 {
		return fmt.Errorf("delta_delay_ms %d: want 0..10000", s.DeltaDelayMS)
	}
	ids := map[string]bool{}
	for i := range s.Turns {
		t := &s.Turns[i]
		if t.Text == "" && len(t.ToolCalls) == 0 {
			return fmt.Errorf("turn %d: needs text or tool_calls", i+1)
		}
		if t.Usage != nil && (t.Usage.InputTokens < 0 || t.Usage.OutputTokens < 0) {
			return fmt.Errorf("turn %d: negative usage", i+1)
		}
		for j := range t.ToolCalls {
			c := &t.ToolCalls[j]
			if strings.TrimSpace(c.Name) == "" {
				return fmt.Errorf("turn %d, call %d: missing name", i+1, j+1)
			}
			if c.ID == "" {
				c.ID = fmt.Sprintf("script_%d_%d", i+1, j+1)
			}
			if ids[c.ID] {
				return fmt.Errorf("turn %d, call %d: id %q used twice", i+1, j+1, c.ID)
			}
			ids[c.ID] = true
			args := bytes.TrimSpace(c.Args)
			if len(args) == 0 || bytes.Equal(args, []byte("null")) {
				c.Args = json.RawMessage("{}")
				continue
			}
			if args[0] != '{' {
				return fmt.Errorf("turn %d, call %d (%s): args must be a JSON object", i+1, j+1, c.Name)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, args); err != nil {
				return fmt.Errorf("turn %d, call %d (%s): args: %w", i+1, j+1, c.Name, err)
			}
			c.Args = compact.Bytes()
		}
	}
	return nil
}
