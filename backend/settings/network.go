package settings

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/gate"
)

// NetworkSettings is the [network] table as the screen shows it: the
// presets to tick, which are ticked, and the user's own allow and deny
// patterns.
type NetworkSettings struct {
	Presets []config.Preset `json:"presets"`
	Enabled []string        `json:"enabled"`
	Allow   []string        `json:"allow"`
	Deny    []string        `json:"deny"`
	// CommandLine lists --allow-host entries of this run (not saved).
	CommandLine []string `json:"command_line"`
}

// NetworkArgs is a save of the Network section.
type NetworkArgs struct {
	Enabled []string `json:"enabled"`
	Allow   []string `json:"allow"`
	Deny    []string `json:"deny"`
}

func (s *Service) networkView(cfg config.Config) NetworkSettings {
	v := NetworkSettings{Presets: config.NetworkPresets(), Enabled: nonNil(cfg.Network.Presets), Allow: nonNil(cfg.Network.Allow),
		Deny: nonNil(cfg.Network.Deny), CommandLine: []string{}}
	for _, p := range s.opts.AllowHosts {
		v.CommandLine = append(v.CommandLine, p.String())
	}
	return v
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func clean(list []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, x := range list {
		x = strings.TrimSpace(x)
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// SaveNetwork validates the patterns and presets, writes [network] and makes
// the calls that start from now on use it. Nothing is written when any entry
// is bad; the error names it.
func (s *Service) SaveNetwork(ctx context.Context, a NetworkArgs) (Settings, error) {
	n := config.Network{Presets: clean(a.Enabled), Allow: clean(a.Allow), Deny: clean(a.Deny)}
	if _, err := n.HostRules(); err != nil {
		return Settings{}, invalid("%v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := config.SaveUser(s.opts.ConfigPath, func(u *config.UserFile) error {
		u.Network.Presets, u.Network.Allow, u.Network.Deny = n.Presets, n.Allow, n.Deny
		return nil
	})
	if err != nil {
		return Settings{}, err
	}
	cfg, err := config.Load(s.opts.ConfigPath, "")
	if err != nil {
		return Settings{}, err
	}
	rules, err := cfg.Network.HostRules()
	if err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	s.opts.Runtime.SetNetwork(gate.NetworkConfig{Rules: rules.With(s.opts.AllowHosts...), AskTimeout: cfg.Network.AskTimeout})
	return s.GetSettings(ctx)
}
