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
type Spec struct {
	Provider string
	Model    string // the model id, or the script file path
}

func (s Spec) String() string {
	if s.Provider == KindDemo {
		return KindDemo
	}
	return s.Provider + ":" + s.Model
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
	return Spec{Provider: prov, Model: rest}, nil
}
