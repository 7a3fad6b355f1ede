// Package settings reads and writes the user's settings for the Settings
// screen and probes model providers: which model and key, the defaults of
// new sessions, the MCP servers with their logs. A save writes the user's
// config.toml and switches the running service at once, so no restart is
// needed. API keys never leave this package except into the config file and
// the provider: the screen sees whether a key is set, where it comes from
// and its last four characters.
package settings

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/telemetry"
)

// DefaultProbeTimeout bounds one ListModels or TestConnection.
const DefaultProbeTimeout = 10 * time.Second

// ErrInvalid marks bad arguments: nothing was written or changed.
var ErrInvalid = errors.New("invalid settings")

// ErrUnknownServer is McpLog's error for a server that is not configured.
var ErrUnknownServer = errors.New("no such MCP server")

// ProviderBuilder turns a model spec, base URL and key into a provider;
// demo says it is the built-in demo (assemble.Provider).
type ProviderBuilder func(spec, baseURL, apiKey string) (p model.Provider, demo bool, err error)

// Options wire a Service; ConfigPath, Runtime and BuildProvider are required.
type Options struct {
	// ConfigPath is the user's config.toml that saves write.
	ConfigPath    string
	Runtime       *runtime.Service
	BuildProvider ProviderBuilder
	// MCP is the running manager; nil when no server is configured.
	MCP *mcp.Manager
	// Warnings are the problems found at start (ignored workspace settings,
	// bad MCP server entries), shown on the screen.
	Warnings     []string
	ProbeTimeout time.Duration
	// HTTPClient carries the probes; nil uses the SDKs' default.
	HTTPClient *http.Client
	// AllowHosts are this run's --allow-host entries, kept on a network
	// save (network.go).
	AllowHosts []policy.HostPattern
	// Cage is the OS cage, for the Sandbox card; nil shows nothing.
	Cage *sandbox.Cage
	// Telemetry reads the export's state (telemetry.go); nil: off.
	Telemetry func(context.Context) (telemetry.ExportStatus, error)
}

// Service is the Settings API.
type Service struct {
	opts Options
	mu   sync.Mutex // serialises read-modify-write of the file
}

// New checks the options.
func New(o Options) (*Service, error) {
	if o.ConfigPath == "" || o.Runtime == nil || o.BuildProvider == nil {
		return nil, errors.New("settings: ConfigPath, Runtime and BuildProvider are required")
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	return &Service{opts: o}, nil
}

// Settings is what the screen shows.
type Settings struct {
	ConfigPath  string         `json:"config_path"`
	Model       ModelSettings  `json:"model"`
	ActiveModel string         `json:"active_model"`
	Defaults    Defaults       `json:"defaults"`
	Providers   []ProviderInfo `json:"providers"`
	Warnings    []string       `json:"warnings" ts:"string[] | null"`
	// Network is the [network] table (network.go).
	Network NetworkSettings `json:"network"`
	// Cage is what the OS cage hides and lets through; absent without one.
	Cage *CageView `json:"cage,omitempty"`
}

// ModelSettings is the configured model; the key itself is never included.
type ModelSettings struct {
	Provider     string `json:"provider" ts:"ProviderId"`
	Model        string `json:"model"`
	BaseURL      string `json:"base_url"`
	APIKeySet    bool   `json:"api_key_set"`
	APIKeySource string `json:"api_key_source" ts:"ApiKeySource"`
	APIKeyHint   string `json:"api_key_hint"`
}

// Defaults are the axes new sessions start with.
type Defaults struct {
	Approval policy.ApprovalPolicy `json:"approval"`
	Sandbox  runtime.Sandbox       `json:"sandbox"`
}

// ProviderInfo describes a provider the screen offers.
type ProviderInfo struct {
	ID             string `json:"id" ts:"ProviderId"`
	Label          string `json:"label"`
	NeedsKey       bool   `json:"needs_key"`
	DefaultBaseURL string `json:"default_base_url"`
}

// Providers are the choices, in the order the screen lists them.
var providers = []ProviderInfo{
	{ID: model.KindDemo, Label: "Built-in demo (no model)"},
	{ID: model.KindAnthropic, Label: "Anthropic", NeedsKey: true, DefaultBaseURL: anthropicDefaultBase},
	{ID: model.KindOpenAI, Label: "OpenAI or compatible (Ollama, vLLM, LM Studio)", NeedsKey: true, DefaultBaseURL: openaiDefaultBase},
	{ID: model.KindScript, Label: "Recorded script file"},
}

// envKey names the environment variable a provider reads its key from.
func envKey(provider string) string {
	switch provider {
	case model.KindAnthropic:
		return "ANTHROPIC_API_KEY"
	case model.KindOpenAI:
		return "OPENAI_API_KEY"
	}
	return ""
}

// GetSettings reads the file now, so an edit made by hand shows too. A
// file that does not parse is reported as a warning (saves are refused).
func (s *Service) GetSettings(ctx context.Context) (Settings, error) {
	out := Settings{ConfigPath: s.opts.ConfigPath, Providers: append([]ProviderInfo(nil), providers...),
		Warnings: append([]string{}, s.opts.Warnings...)}
	uf, err := config.ReadUser(s.opts.ConfigPath)
	cfg := config.Default()
	if err == nil {
		cfg, err = config.Load(s.opts.ConfigPath, "")
	}
	if err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%v (fix the file by hand; saving is refused until then)", err))
		uf, cfg = config.UserFile{}, config.Default()
	}
	out.Model = s.modelView(uf.Model, &out.Warnings)
	out.Defaults = Defaults{Approval: cfg.Approval, Sandbox: sandboxView(cfg.Sandbox)}
	out.Network = s.networkView(cfg)
	out.Cage = cageView(s.opts.Cage)
	info, err := s.opts.Runtime.Info(ctx)
	if err != nil {
		return Settings{}, err
	}
	out.ActiveModel = info.Model
	return out, nil
}

func (s *Service) modelView(m config.UserModel, warnings *[]string) ModelSettings {
	v := ModelSettings{Provider: model.KindDemo, BaseURL: m.BaseURL}
	if m.Spec != "" {
		sp, err := model.ParseModelSpec(m.Spec)
		if err != nil {
			*warnings = append(*warnings, fmt.Sprintf("%s: [model] spec: %v", s.opts.ConfigPath, err))
		} else {
			v.Provider, v.Model = sp.Provider, sp.Model
		}
	}
	key := m.APIKey
	if key != "" {
		v.APIKeySource = "config"
	} else if name := envKey(v.Provider); name != "" {
		if key = os.Getenv(name); key != "" {
			v.APIKeySource = "env:" + name
		}
	}
	v.APIKeySet, v.APIKeyHint = key != "", hint(key)
	return v
}

// hint shows the last four characters of a key, and nothing of a key so
// short that four characters would be most of it.
func hint(key string) string {
	r := []rune(key)
	switch {
	case len(r) == 0:
		return ""
	case len(r) < 12:
		return "…"
	}
	return "…" + string(r[len(r)-4:])
}

func sandboxView(p policy.SandboxPolicy) runtime.Sandbox {
	roots := p.WritableRoots
	if roots == nil {
		roots = []string{}
	}
	return runtime.Sandbox{Kind: p.Kind, NetworkAccess: p.NetworkAccess, WritableRoots: roots}
}
