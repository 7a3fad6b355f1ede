// Package openai is the model.Provider for OpenAI chat completions and any
// OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp) reached
// through a base URL, streaming over SSE through the official SDK.
//
// Images in tool results: the chat-completions API takes only text in a
// "tool" message (OpenAI rejects image parts there, and the compatible
// servers follow it), so each tool message carries the result's text and
// the pictures of one turn's results follow in a single user message right
// after the tool messages, opened by a line saying they came from the
// tool calls above. Images in user messages go as image_url parts (base64
// data URLs). A model that takes no images is marked in its spec
// ("openai:llama3.1:8b#text-only") and never sees one (model.TextOnly).
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/warden-dev/warden/backend/runtime/model"
)

const (
	name    = model.KindOpenAI
	keyHint = "OPENAI_API_KEY or the openai api_key setting"
	// DefaultBaseURL is OpenAI's own endpoint.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultMaxRetries is how often a 429, 408, 409 or 5xx is retried,
	// with exponential backoff or the server's Retry-After.
	DefaultMaxRetries = 3
)

// Config configures the provider. Empty fields fall back to the environment
// (OPENAI_API_KEY, OPENAI_BASE_URL) and then to defaults.
type Config struct {
	Model string
	// APIKey may stay empty for a local OpenAI-compatible server.
	APIKey string
	// BaseURL of an OpenAI-compatible server, e.g.
	// http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM),
	// http://localhost:1234/v1 (LM Studio), http://localhost:8080/v1
	// (llama.cpp).
	BaseURL   string
	MaxTokens int // sent as max_completion_tokens when > 0
	// NoStreamUsage leaves out stream_options.include_usage for servers
	// that reject it; usage then stays zero unless the server sends it.
	NoStreamUsage bool
	MaxRetries    int // 0 means DefaultMaxRetries; negative means none
	HTTPClient    *http.Client
	// RequestTimeout bounds one attempt; 0 leaves it to the context.
	RequestTimeout time.Duration
}

// Provider talks to one chat-completions model.
type Provider struct {
	client    sdk.Client
	model     string
	baseURL   string
	maxTokens int64
	noUsage   bool
}

// New checks the configuration and builds a client. OpenAI's own endpoint
// needs a key; a custom base URL may go without one.
func New(cfg Config) (*Provider, error) {
	if cfg.Model == "" {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "no model given (e.g. openai:gpt-4.1)"}
	}
	key := cfg.APIKey
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	base := cfg.BaseURL
	if base == "" {
		base = os.Getenv("OPENAI_BASE_URL")
	}
	if base == "" {
		base = DefaultBaseURL
	}
	if key == "" && base == DefaultBaseURL {
		return nil, &model.Error{Provider: name, Kind: model.ErrAuth, Message: "no API key: set " + keyHint + " (or a base URL for a local server)"}
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	opts := []option.RequestOption{option.WithBaseURL(base), option.WithMaxRetries(retries)}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.RequestTimeout > 0 {
		opts = append(opts, option.WithRequestTimeout(cfg.RequestTimeout))
	}
	return &Provider{client: sdk.NewClient(opts...), model: cfg.Model, baseURL: base, maxTokens: int64(cfg.MaxTokens), noUsage: cfg.NoStreamUsage}, nil
}

// Name implements model.Provider.
func (p *Provider) Name() string { return name }

// Model implements model.Provider.
func (p *Provider) Model() string { return p.model }

// BaseURL is the endpoint in use, for display.
func (p *Provider) BaseURL() string { return p.baseURL }

// Stream implements model.Provider.
func (p *Provider) Stream(ctx context.Context, req model.Request) (model.Stream, error) {
	if err := req.Validate(); err != nil {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "invalid request", Err: err}
	}
	names := model.NewNameMap(model.RequestNames(req)...)
	params, err := buildParams(p.model, p.maxTokens, req, names)
	if err != nil {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "invalid request", Err: err}
	}
	if p.noUsage {
		params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{}
	}
	st := p.client.Chat.Completions.NewStreaming(ctx, params)
	if err := st.Err(); err != nil {
		st.Close()
		return nil, classify(ctx, p.model, err)
	}
	return newStream(ctx, st, names, p.model), nil
}

func classify(ctx context.Context, modelName string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", name, ctxErr)
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return model.HTTPError(name, modelName, keyHint, apiErr.StatusCode, apiErr.Message, err)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return &model.Error{Provider: name, Kind: model.ErrServer, Message: streamErr.Message}
	}
	return &model.Error{Provider: name, Kind: model.ErrServer, Message: "request failed", Err: err}
}
