package config

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// Network is the [network] table: which hosts a caged command may reach
// through Warden's proxy without asking, which never, and how long one
// destination's ask waits.
//
//	[network]
//	presets = ["npm", "github"]          # see NetworkPresets
//	allow = ["registry.example.com", "*.corp.example:443"]
//	deny = ["*.doubleclick.net"]
//	ask_timeout = "2m"
//
// A workspace file may only add deny entries; its allow, presets and
// ask_timeout are ignored and reported.
type Network struct {
	Allow      []string      `json:"allow"`
	Deny       []string      `json:"deny"`
	Presets    []string      `json:"presets"`
	AskTimeout time.Duration `json:"ask_timeout"`
}

type networkSection struct {
	Allow      []string `toml:"allow"`
	Deny       []string `toml:"deny"`
	Presets    []string `toml:"presets"`
	AskTimeout *string  `toml:"ask_timeout"`
}

// Preset is a named set of allow patterns a user ticks in Settings.
type Preset struct {
	Name  string   `json:"name"`
	Label string   `json:"label"`
	Allow []string `json:"allow"`
}

//go:embed network_presets.json
var presetData []byte

// NetworkPresets lists the presets, by name.
func NetworkPresets() []Preset {
	var m map[string]Preset
	if err := json.Unmarshal(presetData, &m); err != nil {
		panic("config: network_presets.json: " + err.Error()) // embedded at build time; a test parses it
	}
	out := make([]Preset, 0, len(m))
	for name, p := range m {
		p.Name = name
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func presetNames() []string {
	var n []string
	for _, p := range NetworkPresets() {
		n = append(n, p.Name)
	}
	return n
}

// HostRules are the allow patterns (the presets' included) and the deny
// patterns, parsed. Load has validated them.
func (n Network) HostRules() (policy.HostRules, error) {
	allow := append([]string(nil), n.Allow...)
	byName := map[string]Preset{}
	for _, p := range NetworkPresets() {
		byName[p.Name] = p
	}
	for _, name := range n.Presets {
		p, ok := byName[name]
		if !ok {
			return policy.HostRules{}, fmt.Errorf("network preset %q is unknown (known: %s)", name, strings.Join(presetNames(), ", "))
		}
		allow = append(allow, p.Allow...)
	}
	return policy.ParseHostRules(allow, n.Deny)
}

func (c *Config) applyNetwork(s *networkSection, path string, untrusted bool) error {
	if s == nil {
		return nil
	}
	next := c.Network
	next.Deny = append(append([]string(nil), c.Network.Deny...), s.Deny...)
	if untrusted {
		if len(s.Allow) > 0 || len(s.Presets) > 0 || s.AskTimeout != nil {
			c.Warnings = append(c.Warnings, path+": [network] allow, presets and ask_timeout are ignored in a workspace file (it may only deny hosts)")
		}
	} else {
		if s.Allow != nil {
			next.Allow = s.Allow
		}
		if s.Presets != nil {
			next.Presets = s.Presets
		}
		if s.AskTimeout != nil {
			t, err := time.ParseDuration(*s.AskTimeout)
			if err != nil || t < 0 {
				return fmt.Errorf("config: %s: network.ask_timeout %q is not a duration like \"30s\" or \"2m\"", path, *s.AskTimeout)
			}
			next.AskTimeout = t
		}
	}
	if _, err := next.HostRules(); err != nil {
		return fmt.Errorf("config: %s: [network]: %w", path, err)
	}
	c.Network = next
	return nil
}

// UserNetwork is the [network] table as the Settings screen edits it.
type UserNetwork struct {
	Presets    []string
	Allow      []string
	Deny       []string
	AskTimeout string
}

type networkOut struct {
	Presets    []string `toml:"presets,omitempty"`
	Allow      []string `toml:"allow,omitempty"`
	Deny       []string `toml:"deny,omitempty"`
	AskTimeout string   `toml:"ask_timeout,omitempty"`
}
