package settings

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
)

// ModelArgs choose the model. APIKey "" keeps the stored key (for the same
// provider; a provider change forgets it); ClearAPIKey removes it.
type ModelArgs struct {
	Provider    string `json:"provider" ts:"ProviderId"`
	Model       string `json:"model"`
	BaseURL     string `json:"base_url"`
	APIKey      string `json:"api_key,omitempty"`
	ClearAPIKey bool   `json:"clear_api_key,omitempty"`
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// validModel checks the arguments and returns the spec to store.
func validModel(a *ModelArgs) (string, error) {
	a.Model, a.BaseURL, a.APIKey = strings.TrimSpace(a.Model), strings.TrimSpace(a.BaseURL), strings.TrimSpace(a.APIKey)
	if err := validBaseURL(a.BaseURL); err != nil {
		return "", err
	}
	if a.APIKey != "" && a.ClearAPIKey {
		return "", invalid("give a new API key or clear the stored one, not both")
	}
	if strings.IndexFunc(a.APIKey, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "", invalid("the API key contains spaces or control characters")
	}
	switch a.Provider {
	case model.KindDemo:
		a.Model = ""
		return model.KindDemo, nil
	case model.KindAnthropic, model.KindOpenAI:
		if a.Model == "" {
			return "", invalid("%s needs a model name (e.g. %s)", a.Provider, exampleModel(a.Provider))
		}
		if strings.IndexFunc(a.Model, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			return "", invalid("model name %q contains spaces or control characters", a.Model)
		}
	case model.KindScript:
		if a.Model == "" {
			return "", invalid("script needs the path of a script file")
		}
		abs, err := filepath.Abs(a.Model)
		if err != nil {
			return "", invalid("script file %q: %v", a.Model, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return "", invalid("script file %s does not exist or cannot be read", abs)
		}
		if !fi.Mode().IsRegular() {
			return "", invalid("script file %s is not a regular file", abs)
		}
		a.Model = abs
	default:
		return "", invalid("unknown provider %q (want demo, anthropic, openai or script)", a.Provider)
	}
	return a.Provider + ":" + a.Model, nil
}

func exampleModel(provider string) string {
	if provider == model.KindAnthropic {
		return "claude-sonnet-4-5"
	}
	return "gpt-4.1"
}

// validBaseURL accepts "" (the provider's default) or http(s)://host[/path].
func validBaseURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("base URL %q is not an http:// or https:// address with a host", s)
	}
	if u.User != nil {
		return invalid("base URL must not carry credentials; put the key in the API key field")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return invalid("base URL %q must not have a query or fragment", s)
	}
	return nil
}

// providerOf is the provider a stored spec names ("" when none or invalid).
func providerOf(spec string) string {
	if spec == "" {
		return model.KindDemo
	}
	sp, err := model.ParseModelSpec(spec)
	if err != nil {
		return ""
	}
	return sp.Provider
}

// SaveModelSettings validates, builds the new provider, writes the file and
// switches the running service to it. Nothing is written, and the running
// model stays, when any step before the write fails.
func (s *Service) SaveModelSettings(ctx context.Context, a ModelArgs) (Settings, error) {
	spec, err := validModel(&a)
	if err != nil {
		return Settings{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := config.ReadUser(s.opts.ConfigPath)
	if err != nil {
		return Settings{}, fmt.Errorf("%w (fix the file by hand first)", err)
	}
	key := cur.Model.APIKey
	switch {
	case a.APIKey != "":
		key = a.APIKey
	case a.ClearAPIKey:
		key = ""
	case providerOf(cur.Model.Spec) != a.Provider:
		// The stored key belongs to the provider it was saved with; the
		// file does not say which, so a provider change forgets it rather
		// than send one vendor's key to another.
		key = ""
	}
	prov, demo, err := s.opts.BuildProvider(spec, a.BaseURL, key)
	if err != nil {
		return Settings{}, fmt.Errorf("%w: cannot use %s: %w", ErrInvalid, spec, err)
	}
	err = config.SaveUser(s.opts.ConfigPath, func(u *config.UserFile) error {
		u.Model = config.UserModel{Spec: spec, BaseURL: a.BaseURL, APIKey: key}
		return nil
	})
	if err != nil {
		return Settings{}, err
	}
	s.opts.Runtime.SetModel(prov, demo)
	return s.GetSettings(ctx)
}

// SaveDefaults writes [defaults] and makes new sessions use them.
func (s *Service) SaveDefaults(ctx context.Context, d Defaults) (Settings, error) {
	approval, err := d.Approval.MarshalText()
	if err != nil {
		return Settings{}, invalid("approval: %v", err)
	}
	kind, err := d.Sandbox.Kind.MarshalText()
	if err != nil {
		return Settings{}, invalid("sandbox: %v", err)
	}
	var roots []string
	for _, r := range d.Sandbox.WritableRoots {
		if !filepath.IsAbs(r) {
			return Settings{}, invalid("writable root %q is not an absolute path", r)
		}
		roots = append(roots, filepath.Clean(r))
	}
	network := d.Sandbox.NetworkAccess
	// A saved default above the organisation's ceiling is refused, like
	// the same change on a session.
	if err := s.opts.Org.CheckApproval(d.Approval); err != nil {
		return Settings{}, err
	}
	if err := s.opts.Org.CheckSandbox(policy.SandboxPolicy{Kind: d.Sandbox.Kind, NetworkAccess: network}); err != nil {
		return Settings{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err = config.SaveUser(s.opts.ConfigPath, func(u *config.UserFile) error {
		u.Defaults.Approval, u.Defaults.Sandbox = string(approval), string(kind)
		u.Defaults.Network, u.Defaults.WritableRoots = &network, roots
		return nil
	})
	if err != nil {
		return Settings{}, err
	}
	s.opts.Runtime.SetDefaults(d.Approval, policy.SandboxPolicy{Kind: d.Sandbox.Kind, NetworkAccess: network, WritableRoots: roots})
	return s.GetSettings(ctx)
}
