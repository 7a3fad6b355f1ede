// Package anthropic is the model.Provider for the Anthropic Messages API,
// streaming over SSE through the official SDK.
//
// Images in tool results go inside the tool_result block as base64 image
// blocks, next to its text, which the Messages API accepts; a spec marked
// "#text-only" never sends one (model.TextOnly).
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/warden-dev/warden/backend/runtime/model"
)

const (
	name             = model.KindAnthropic
	keyHint          = "ANTHROPIC_API_KEY or the anthropic api_key setting"
	defaultMaxTokens = 8192
	// DefaultMaxRetries is how often a 429, 408, 409 or 5xx is retried,
	// with exponential backoff or the server's Retry-After.
	DefaultMaxRetries = 3
)

// Config configures the provider. Empty fields fall back to the environment
// (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) and then to defaults.
type Config struct {
	Model      string
	APIKey     string
	BaseURL    string
	MaxTokens  int // per response when the request says 0; default 8192
	MaxRetries int // 0 means DefaultMaxRetries; negative means none
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
	// RequestTimeout bounds one attempt; 0 leaves it to the context.
	RequestTimeout time.Duration
}

// Provider talks to one Anthropic model.
type Provider struct {
	client    sdk.Client
	model     string
	maxTokens int64
}

// New checks the configuration and builds a client. It fails without a key
// rather than at the first request, so a misconfiguration shows at start.
func New(cfg Config) (*Provider, error) {
	if cfg.Model == "" {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "no model given (e.g. anthropic:claude-sonnet-4-5)"}
	}
	key := cfg.APIKey
	if key == "" {
		key = os.Getenv("ANTHROPIC_API_KEY")
	}
	if key == "" {
		return nil, &model.Error{Provider: name, Kind: model.ErrAuth, Message: "no API key: set " + keyHint}
	}
	base := cfg.BaseURL
	if base == "" {
		base = os.Getenv("ANTHROPIC_BASE_URL")
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithMaxRetries(retries),
	}
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.RequestTimeout > 0 {
		opts = append(opts, option.WithRequestTimeout(cfg.RequestTimeout))
	}
	mt := int64(cfg.MaxTokens)
	if mt <= 0 {
		mt = defaultMaxTokens
	}
	return &Provider{client: sdk.NewClient(opts...), model: cfg.Model, maxTokens: mt}, nil
}

// Name implements model.Provider.
func (p *Provider) Name() string { return name }

// Model implements model.Provider.
func (p *Provider) Model() string { return p.model }

// Stream implements model.Provider. HTTP failures (after the SDK's retries)
// come back here; stream failures come from Recv.
func (p *Provider) Stream(ctx context.Context, req model.Request) (model.Stream, error) {
	if err := req.Validate(); err != nil {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "invalid request", Err: err}
	}
	names := model.NewNameMap(model.RequestNames(req)...)
	params, err := buildParams(p.model, p.maxTokens, req, names)
	if err != nil {
		return nil, &model.Error{Provider: name, Kind: model.ErrBadRequest, Message: "invalid request", Err: err}
	}
	st := p.client.Messages.NewStreaming(ctx, params)
	if err := st.Err(); err != nil {
		st.Close()
		return nil, classify(ctx, p.model, err, false)
	}
	return newStream(ctx, st, names, p.model), nil
}

// classify turns an SDK or transport error into a model error. inStream
// says the error came from an "error" event inside a 200 response, whose
// status code says nothing about the failure.
func classify(ctx context.Context, modelName string, err error, inStream bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", name, ctxErr)
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		if inStream || apiErr.StatusCode == 0 {
			// An "error" event inside a 200 stream, e.g. overloaded_error.
			return &model.Error{Provider: name, Kind: streamErrorKind(string(apiErr.Type())), Message: "error event in stream: " + apiErr.Message}
		}
		return model.HTTPError(name, modelName, keyHint, apiErr.StatusCode, apiErr.Message, err)
	}
	return &model.Error{Provider: name, Kind: model.ErrServer, Message: "request failed", Err: err}
}

func streamErrorKind(t string) error {
	switch t {
	case "overloaded_error", "api_error":
		return model.ErrServer
	case "rate_limit_error":
		return model.ErrRateLimited
	case "authentication_error", "permission_error":
		return model.ErrAuth
	case "not_found_error":
		return model.ErrModelNotFound
	}
	return model.ErrBadRequest
}
