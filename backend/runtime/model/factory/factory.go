// Package factory builds a model.Provider from a model spec string
// ("anthropic:MODEL", "openai:MODEL", "script:FILE", "demo") and the
// per-provider settings from the config file or flags.
package factory

import (
	"fmt"

	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/openai"
	"github.com/warden-dev/warden/backend/runtime/model/script"
)

// Config carries each provider's settings; the spec supplies the model, so
// the Model fields here are ignored. Empty keys and URLs fall back to the
// environment inside each provider.
type Config struct {
	Anthropic anthropic.Config
	OpenAI    openai.Config
	Script    script.Options
}

// New parses spec and builds its provider. An empty spec means nothing is
// configured, which starts the built-in demo.
func New(spec string, cfg Config) (model.Provider, error) {
	if spec == "" {
		spec = model.KindDemo
	}
	s, err := model.ParseModelSpec(spec)
	if err != nil {
		return nil, err
	}
	return FromSpec(s, cfg)
}

// FromSpec builds the provider a parsed spec names. A spec marked
// text-only gets a provider that never sends an image.
func FromSpec(s model.Spec, cfg Config) (model.Provider, error) {
	p, err := fromSpec(s, cfg)
	if err != nil || !s.TextOnly {
		return p, err
	}
	return model.TextOnly(p), nil
}

func fromSpec(s model.Spec, cfg Config) (model.Provider, error) {
	switch s.Provider {
	case model.KindAnthropic:
		c := cfg.Anthropic
		c.Model = s.Model
		return anthropic.New(c)
	case model.KindOpenAI:
		c := cfg.OpenAI
		c.Model = s.Model
		return openai.New(c)
	case model.KindScript:
		return script.Open(s.Model, cfg.Script)
	case model.KindDemo:
		return script.NewDemo(cfg.Script)
	}
	return nil, fmt.Errorf("model spec %q: unknown provider %q", s.String(), s.Provider)
}
