package settings

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	asdk "github.com/anthropics/anthropic-sdk-go/v2"
	aopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	osdk "github.com/openai/openai-go/v3"
	oopt "github.com/openai/openai-go/v3/option"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/runtime/model"
)

const (
	anthropicDefaultBase = "https://api.anthropic.com"
	openaiDefaultBase    = "https://api.openai.com/v1"
	// maxModels bounds a listing, so a server that claims more pages
	// forever ends the walk before the timeout does.
	maxModels = 5000
)

// ProbeArgs name what to probe; APIKey "" uses the stored key (the file's,
// when it is for the same provider, then the environment).
type ProbeArgs struct {
	Provider string `json:"provider" ts:"ProviderId"`
	BaseURL  string `json:"base_url"`
	APIKey   string `json:"api_key,omitempty"`
	Model    string `json:"model,omitempty"`
}

// ModelInfo is one model a provider offers.
type ModelInfo struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at,omitempty"`
}

// ConnectionResult is TestConnection's verdict; Message is for humans.
type ConnectionResult struct {
	OK         bool   `json:"ok"`
	LatencyMS  int64  `json:"latency_ms"`
	ModelCount int    `json:"model_count"`
	ModelFound bool   `json:"model_found"`
	Message    string `json:"message"`
}

// probeError is a failed probe with the sentence the screen shows.
type probeError struct {
	msg string
	err error
}

func (e *probeError) Error() string { return e.msg }
func (e *probeError) Unwrap() error { return e.err }

// target is a resolved probe: where to ask and with which key.
type target struct {
	provider, base, shown, key string
}

func (s *Service) resolve(a ProbeArgs) (target, error) {
	switch a.Provider {
	case model.KindDemo, model.KindScript, model.KindAnthropic, model.KindOpenAI:
	default:
		return target{}, invalid("unknown provider %q (want demo, anthropic, openai or script)", a.Provider)
	}
	if err := validBaseURL(a.BaseURL); err != nil {
		return target{}, err
	}
	t := target{provider: a.Provider, base: a.BaseURL, key: a.APIKey}
	if t.key == "" {
		if uf, err := config.ReadUser(s.opts.ConfigPath); err == nil && providerOf(uf.Model.Spec) == a.Provider {
			t.key = uf.Model.APIKey
		}
	}
	if t.key == "" && envKey(a.Provider) != "" {
		t.key = os.Getenv(envKey(a.Provider))
	}
	// The same fallbacks the chat providers use, so the probe asks the
	// server the chat would.
	t.shown = t.base
	switch a.Provider {
	case model.KindAnthropic:
		if t.shown == "" {
			t.shown = os.Getenv("ANTHROPIC_BASE_URL")
		}
		if t.shown == "" {
			t.shown = anthropicDefaultBase
		}
	case model.KindOpenAI:
		if t.shown == "" {
			t.shown = os.Getenv("OPENAI_BASE_URL")
		}
		if t.shown == "" {
			t.shown = openaiDefaultBase
		}
	}
	return t, nil
}

// ListModels asks the provider's models endpoint.
func (s *Service) ListModels(ctx context.Context, a ProbeArgs) ([]ModelInfo, error) {
	t, err := s.resolve(a)
	if err != nil {
		return nil, err
	}
	return s.list(ctx, t, a.Model)
}

func (s *Service) list(ctx context.Context, t target, modelArg string) ([]ModelInfo, error) {
	switch t.provider {
	case model.KindDemo:
		return []ModelInfo{{ID: "demo", DisplayName: "Built-in demo script"}}, nil
	case model.KindScript:
		if modelArg == "" {
			return []ModelInfo{}, nil
		}
		return []ModelInfo{{ID: modelArg, DisplayName: filepath.Base(modelArg)}}, nil
	}
	if t.key == "" && (t.provider == model.KindAnthropic || t.shown == openaiDefaultBase) {
		return nil, &probeError{msg: fmt.Sprintf("No API key: enter one or set %s.", envKey(t.provider))}
	}
	pctx, cancel := context.WithTimeout(ctx, s.opts.ProbeTimeout)
	defer cancel()
	if t.provider == model.KindAnthropic {
		out, err := s.listAnthropic(pctx, t)
		return out, s.explain(ctx, t, err)
	}
	out, err := s.listOpenAI(pctx, t)
	return out, s.explain(ctx, t, err)
}

func (s *Service) listAnthropic(ctx context.Context, t target) ([]ModelInfo, error) {
	opts := []aopt.RequestOption{aopt.WithoutEnvironmentDefaults(), aopt.WithAPIKey(t.key), aopt.WithMaxRetries(0),
		aopt.WithBaseURL(t.shown)}
	if s.opts.HTTPClient != nil {
		opts = append(opts, aopt.WithHTTPClient(s.opts.HTTPClient))
	}
	c := asdk.NewClient(opts...)
	pager := c.Models.ListAutoPaging(ctx, asdk.ModelListParams{Limit: asdk.Int(1000)})
	out := []ModelInfo{}
	for len(out) < maxModels && pager.Next() {
		m := pager.Current()
		mi := ModelInfo{ID: m.ID, DisplayName: m.DisplayName}
		if !m.CreatedAt.IsZero() {
			mi.CreatedAt = m.CreatedAt.UTC().Format(time.RFC3339)
		}
		out = append(out, mi)
	}
	return out, pager.Err()
}

func (s *Service) listOpenAI(ctx context.Context, t target) ([]ModelInfo, error) {
	opts := []oopt.RequestOption{oopt.WithBaseURL(t.shown), oopt.WithMaxRetries(0)}
	if t.key != "" {
		opts = append(opts, oopt.WithAPIKey(t.key))
	}
	if s.opts.HTTPClient != nil {
		opts = append(opts, oopt.WithHTTPClient(s.opts.HTTPClient))
	}
	c := osdk.NewClient(opts...)
	pager := c.Models.ListAutoPaging(ctx)
	out := []ModelInfo{}
	for len(out) < maxModels && pager.Next() {
		m := pager.Current()
		mi := ModelInfo{ID: m.ID, DisplayName: m.ID}
		if m.Created > 0 {
			mi.CreatedAt = time.Unix(m.Created, 0).UTC().Format(time.RFC3339)
		}
		out = append(out, mi)
	}
	return out, pager.Err()
}

// explain turns a transport or API failure into a sentence.
func (s *Service) explain(ctx context.Context, t target, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := ""
	var ae *asdk.Error
	var oe *osdk.Error
	var dns *net.DNSError
	status := 0
	switch {
	case errors.As(err, &ae):
		status = ae.StatusCode
	case errors.As(err, &oe):
		status = oe.StatusCode
	}
	switch {
	case status == 401 || status == 403:
		msg = fmt.Sprintf("The API key was refused (%d).", status)
	case status == 404:
		msg = fmt.Sprintf("%s has no models endpoint (404): check the base URL.", t.shown)
	case status == 429:
		msg = "The server is rate limiting (429); try again shortly."
	case status >= 500:
		msg = fmt.Sprintf("The server failed (%d); try again later.", status)
	case status != 0:
		msg = fmt.Sprintf("The server refused the request (%d).", status)
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("No answer from %s within %s.", t.shown, s.opts.ProbeTimeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = fmt.Sprintf("Cannot reach %s: connection refused.", t.shown)
	case errors.As(err, &dns):
		msg = fmt.Sprintf("Cannot reach %s: host %s not found.", t.shown, dns.Name)
	default:
		var op *net.OpError
		if errors.As(err, &op) {
			msg = fmt.Sprintf("Cannot reach %s: %v.", t.shown, op.Err)
		} else {
			msg = fmt.Sprintf("%s did not answer like the %s API: %v", t.shown, t.provider, err)
		}
	}
	return &probeError{msg: msg, err: err}
}

// TestConnection lists the models and says whether the chosen one is
// there. A refused key or an unreachable host is a result, not an error;
// an error means the arguments were bad.
func (s *Service) TestConnection(ctx context.Context, a ProbeArgs) (ConnectionResult, error) {
	t, err := s.resolve(a)
	if err != nil {
		return ConnectionResult{}, err
	}
	switch t.provider {
	case model.KindDemo:
		return ConnectionResult{OK: true, ModelCount: 1, ModelFound: true,
			Message: "The built-in demo runs locally; no connection is needed."}, nil
	case model.KindScript:
		if a.Model == "" {
			return ConnectionResult{Message: "Choose a script file."}, nil
		}
		if _, err := os.Stat(a.Model); err != nil {
			return ConnectionResult{Message: fmt.Sprintf("Cannot read the script file %s.", a.Model)}, nil
		}
		return ConnectionResult{OK: true, ModelCount: 1, ModelFound: true,
			Message: fmt.Sprintf("The script %s runs locally; no connection is needed.", filepath.Base(a.Model))}, nil
	}
	start := time.Now()
	models, err := s.list(ctx, t, a.Model)
	res := ConnectionResult{LatencyMS: time.Since(start).Milliseconds()}
	var pe *probeError
	if errors.As(err, &pe) {
		res.Message = pe.msg
		return res, nil
	}
	if err != nil {
		return res, err
	}
	res.OK, res.ModelCount = true, len(models)
	for _, m := range models {
		if m.ID == a.Model {
			res.ModelFound = true
		}
	}
	count := fmt.Sprintf("%d models", len(models))
	if len(models) == 1 {
		count = "1 model"
	}
	switch {
	case a.Model == "":
		res.Message = fmt.Sprintf("Connected: %s.", count)
	case res.ModelFound:
		res.Message = fmt.Sprintf("Connected: %s; %s is available.", count, a.Model)
	default:
		res.Message = fmt.Sprintf("Connected, but model %s is not in the list.", a.Model)
	}
	return res, nil
}
