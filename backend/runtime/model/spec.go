package model

import (
	"fmt"
	"strings"
)

// Provider kinds a Spec may name.
const (
	KindAnthropic = "anthropic"
	KindOpenAI    = "openai"
	KindScript    = "script"
	// KindDemo is the built-in demo script; it takes no model part.
	KindDemo = "demo"
)

// Spec names a provider and its model: "anthropic:claude-sonnet-4-5",
// "openai:gpt-4.1", "openai:llama3.1:8b" (everything after the first colon is
// the model, so Ollama tags survive), "script:path/to/turns.json", "demo".
//
// Options follow the model after a '#', comma-separated:
// "openai:llama3.1:8b#text-only" marks a model that takes no images, so no
// request to it ever carries one (TextOnly wraps its provider).
type Spec struct {
	Provider string
	Model    string // the model id, or the script file path
	TextOnly bool   // the model takes text only: images are replaced by a note
}

// SpecOptionTextOnly is the option that marks a text-only model.
const SpecOptionTextOnly = "text-only"

func (s Spec) String() string {
	if s.Provider == KindDemo {
		return KindDemo
	}
	out := s.Provider + ":" + s.Model
	if s.TextOnly {
		out += "#" + SpecOptionTextOnly
	}
	return out
}

// ParseModelSpec parses "PROVIDER:MODEL" (or "demo").
func ParseModelSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, fmt.Errorf("empty model spec: want PROVIDER:MODEL (anthropic, openai, script) or demo")
	}
	prov, rest, found := strings.Cut(s, ":")
	prov = strings.ToLower(strings.TrimSpace(prov))
	rest = strings.TrimSpace(rest)
	switch prov {
	case KindDemo:
		if rest != "" {
			return Spec{}, fmt.Errorf("model spec %q: demo takes no model", s)
		}
		return Spec{Provider: KindDemo}, nil
	case KindAnthropic, KindOpenAI, KindScript:
	default:
		return Spec{}, fmt.Errorf("model spec %q: unknown provider %q (want anthropic, openai, script or demo)", s, prov)
	}
	var textOnly bool
	if i := strings.LastIndexByte(rest, '#'); i >= 0 {
		for _, o := range strings.Split(rest[i+1:], ",") {
			switch strings.ToLower(strings.TrimSpace(o)) {
			case SpecOptionTextOnly:
				textOnly = true
			default:
				return Spec{}, fmt.Errorf("model spec %q: unknown option %q after '#' (known: %s)", s, strings.TrimSpace(o), SpecOptionTextOnly)
			}
		}
		rest = strings.TrimSpace(rest[:i])
	}
	if !found || rest == "" {
		what := "model"
		if prov == KindScript {
			what = "file"
		}
		return Spec{}, fmt.Errorf("model spec %q: missing %s after %q", s, what, prov+":")
	}
	if strings.ContainsAny(rest, "\x00\n\r") {
		return Spec{}, fmt.Errorf("model spec %q: control characters in the model", s)
	}
	return Spec{Provider: prov, Model: rest, TextOnly: textOnly}, nil
}
