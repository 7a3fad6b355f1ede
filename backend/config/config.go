// Package config reads Warden's settings: the user's
// $XDG_CONFIG_HOME/warden/config.toml and, per workspace,
// <workspace>/.warden/config.toml.
//
// Every key has a default that works with nothing configured. A workspace
// file comes with the repository, so it is untrusted input: it may only make
// the session defaults stricter (a narrower sandbox, network off, a stricter
// approval policy). It can never choose the model, the API key or the sandbox
// mode, and a wider setting in it is ignored and reported.
//
// The [mcp.servers] tables are read by backend/mcp; this package
// leaves them alone.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/warden-dev/warden/backend/policy"
)

// Config is the resolved configuration.
type Config struct {
	// Model is a model spec: "anthropic:NAME", "openai:NAME" or
	// "script:FILE". Empty means the built-in demo script.
	Model   string
	BaseURL string
	// APIKey is read from the file only when set there; the providers fall
	// back to ANTHROPIC_API_KEY / OPENAI_API_KEY.
	APIKey string

	Approval        policy.ApprovalPolicy
	Sandbox         policy.SandboxPolicy
	ApprovalTimeout time.Duration

	// SandboxMode is "bwrap" (default) or "container" (trust an outer
	// container; never the default).
	SandboxMode string
	// Cage is the OS cage's [sandbox] settings beyond the mode.
	Cage CageSettings

	// Images caps the pictures (screenshots) sent to the model; zero
	// fields take the runtime's defaults.
	Images Images

	// Network is the [network] table (network.go).
	Network Network

	// Telemetry is the OpenTelemetry export (telemetry.go), resolved from
	// the user's [telemetry]; TelemetryUser is that table as written, for
	// the organisation tier to merge over (MergeTelemetry).
	Telemetry     Telemetry
	TelemetryUser *TelemetrySection

	// Sources lists the files that were read, in order.
	Sources []string
	// Warnings are settings that were ignored, each naming its file.
	Warnings []string
}

// Images is the [images] section: MaxEdge (pixels of the longest side),
// MaxBytes (encoded size of one picture) and Keep (how many of the newest
// pictures a request carries; -1 sends none).
type Images struct {
	MaxEdge  int
	MaxBytes int
	Keep     int
}

// Default is the configuration with nothing configured.
func Default() Config {
	return Config{
		Approval:    policy.OnRequest,
		Sandbox:     policy.SandboxPolicy{Kind: policy.WorkspaceWrite},
		SandboxMode: "bwrap",
		Telemetry:   DefaultTelemetry(),
	}
}

// file is the on-disk shape.
type file struct {
	Model     *modelSection     `toml:"model"`
	Defaults  *defaultsSection  `toml:"defaults"`
	Sandbox   *sandboxSection   `toml:"sandbox"`
	Network   *networkSection   `toml:"network"`
	Images    *imagesSection    `toml:"images"`
	Telemetry *TelemetrySection `toml:"telemetry"`
	// MCP belongs to backend/mcp; declared so it is not "unknown".
	MCP toml.Primitive `toml:"mcp"`
}

type modelSection struct {
	Spec    string `toml:"spec"`
	BaseURL string `toml:"base_url"`
	APIKey  string `toml:"api_key"`
}

type defaultsSection struct {
	Approval        *string  `toml:"approval"`
	Sandbox         *string  `toml:"sandbox"`
	Network         *bool    `toml:"network"`
	WritableRoots   []string `toml:"writable_roots"`
	ApprovalTimeout *string  `toml:"approval_timeout"`
}

type sandboxSection struct {
	Mode             string   `toml:"mode"`
	DenyRead         []string `toml:"deny_read"`
	AllowUnixSockets []string `toml:"allow_unix_sockets"`
	MaxProcesses     *int64   `toml:"max_processes"`
	TmpSize          *string  `toml:"tmp_size"`
	MaxFileSize      *string  `toml:"max_file_size"`
}

type imagesSection struct {
	MaxEdge  *int `toml:"max_edge"`
	MaxBytes *int `toml:"max_bytes"`
	Keep     *int `toml:"keep"`
}

// applyImages reads [images]; in a workspace file (narrow) a value only
// ever lowers what is sent.
func (c *Config) applyImages(s *imagesSection, path string, narrow bool) error {
	if s == nil {
		return nil
	}
	set := func(dst *int, v *int, name string, min int) error {
		if v == nil {
			return nil
		}
		if *v < min {
			return fmt.Errorf("config: %s: images.%s %d is below %d", path, name, *v, min)
		}
		if narrow && *dst != 0 && *v > *dst {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: images.%s %d is larger than %d and is ignored", path, name, *v, *dst))
			return nil
		}
		*dst = *v
		return nil
	}
	if err := set(&c.Images.MaxEdge, s.MaxEdge, "max_edge", 16); err != nil {
		return err
	}
	if err := set(&c.Images.MaxBytes, s.MaxBytes, "max_bytes", 1024); err != nil {
		return err
	}
	return set(&c.Images.Keep, s.Keep, "keep", -1)
}

// UserPath is $XDG_CONFIG_HOME/warden/config.toml (~/.config when unset).
func UserPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("config: no XDG_CONFIG_HOME and no home directory: %w", err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "warden", "config.toml"), nil
}

// WorkspacePath is the workspace's own settings file.
func WorkspacePath(workspace string) string {
	return filepath.Join(workspace, ".warden", "config.toml")
}

// Load reads the user file at userPath (missing is fine) and, when
// workspace is not empty, the workspace file.
func Load(userPath, workspace string) (Config, error) {
	cfg := Default()
	if userPath != "" {
		if err := cfg.applyFile(userPath, false); err != nil {
			return cfg, err
		}
	}
	if workspace != "" {
		if err := cfg.applyFile(WorkspacePath(workspace), true); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

func (c *Config) applyFile(path string, untrusted bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config: read %s: %w", path, err)
	}
	f, err := Parse(data, path)
	if err != nil {
		return err
	}
	c.Sources = append(c.Sources, path)
	if untrusted {
		return c.narrow(f, path)
	}
	return c.apply(f, path)
}

// Parse decodes one file. Unknown keys are errors naming the file, so a typo
// never silently falls back to a default.
func Parse(data []byte, path string) (file, error) {
	var f file
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return f, fmt.Errorf("config: %s: %w", path, err)
	}
	var unknown []string
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == "mcp" {
			continue
		}
		unknown = append(unknown, k.String())
	}
	if len(unknown) > 0 {
		return f, fmt.Errorf("config: %s: unknown keys %s (valid sections: [model] spec, base_url, api_key; [defaults] approval, sandbox, network, writable_roots, approval_timeout; [sandbox] mode, deny_read, allow_unix_sockets, max_processes, tmp_size, max_file_size; [images] max_edge, max_bytes, keep; [network] allow, deny, presets, ask_timeout; [telemetry] enabled, endpoint, protocol, headers, ca_file, cert_file, key_file, insecure, log_arguments, user_name, metrics, metrics_interval, outbox_max_records, outbox_max_age; [mcp.servers.NAME])",
			path, strings.Join(unknown, ", "))
	}
	return f, nil
}

func (c *Config) apply(f file, path string) error {
	if m := f.Model; m != nil {
		c.Model, c.BaseURL, c.APIKey = m.Spec, m.BaseURL, m.APIKey
	}
	if s := f.Sandbox; s != nil {
		if err := c.Cage.apply(s, path); err != nil {
			return err
		}
	}
	if s := f.Sandbox; s != nil && s.Mode != "" {
		switch s.Mode {
		case "bwrap", "container":
			c.SandboxMode = s.Mode
		default:
			return fmt.Errorf("config: %s: sandbox.mode %q is not valid (valid: bwrap, container)", path, s.Mode)
		}
	}
	if err := c.applyNetwork(f.Network, path, false); err != nil {
		return err
	}
	if err := c.applyImages(f.Images, path, false); err != nil {
		return err
	}
	if f.Telemetry != nil {
		t, warn, err := MergeTelemetry(nil, f.Telemetry, path)
		if err != nil {
			return err
		}
		c.Telemetry, c.TelemetryUser = t, f.Telemetry
		c.Warnings = append(c.Warnings, warn...)
	}
	d, err := parseDefaults(f.Defaults, path)
	if err != nil {
		return err
	}
	if d.approval != nil {
		c.Approval = *d.approval
	}
	if d.kind != nil {
		c.Sandbox.Kind = *d.kind
	}
	if d.network != nil {
		c.Sandbox.NetworkAccess = *d.network
	}
	if d.roots != nil {
		c.Sandbox.WritableRoots = d.roots
	}
	if d.timeout != nil {
		c.ApprovalTimeout = *d.timeout
	}
	return nil
}

// narrow applies a workspace file: only settings that make things stricter.
func (c *Config) narrow(f file, path string) error {
	if f.Model != nil {
		c.Warnings = append(c.Warnings, path+": [model] is ignored in a workspace file (it would choose where your code is sent)")
	}
	if f.Sandbox != nil {
		c.Warnings = append(c.Warnings, path+": [sandbox] is ignored in a workspace file (it would turn the OS cage off)")
	}
	if f.Telemetry != nil {
		c.Warnings = append(c.Warnings, path+": [telemetry] is ignored in a workspace file (it would choose where the audit is sent, or stop it)")
	}
	if err := c.applyNetwork(f.Network, path, true); err != nil {
		return err
	}
	if err := c.applyImages(f.Images, path, true); err != nil {
		return err
	}
	d, err := parseDefaults(f.Defaults, path)
	if err != nil {
		return err
	}
	if d.approval != nil {
		if strictness(*d.approval) >= strictness(c.Approval) {
			c.Approval = *d.approval
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: approval %q is less strict than %q and is ignored", path, *d.approval, c.Approval))
		}
	}
	if d.kind != nil {
		if width(*d.kind) <= width(c.Sandbox.Kind) {
			c.Sandbox.Kind = *d.kind
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: sandbox %q is wider than %q and is ignored", path, *d.kind, c.Sandbox.Kind))
		}
	}
	if d.network != nil {
		if !*d.network {
			c.Sandbox.NetworkAccess = false
		} else if !c.Sandbox.NetworkAccess {
			c.Warnings = append(c.Warnings, path+": network = true is ignored in a workspace file")
		}
	}
	if d.roots != nil {
		c.Warnings = append(c.Warnings, path+": writable_roots is ignored in a workspace file")
	}
	if d.timeout != nil {
		c.ApprovalTimeout = *d.timeout
	}
	return nil
}

func strictness(a policy.ApprovalPolicy) int {
	switch a {
	case policy.Never:
		return 0
	case policy.OnRequest:
		return 1
	default:
		return 2
	}
}

func width(k policy.SandboxKind) int {
	switch k {
	case policy.ReadOnly:
		return 0
	case policy.WorkspaceWrite:
		return 1
	default:
		return 2
	}
}

type defaults struct {
	approval *policy.ApprovalPolicy
	kind     *policy.SandboxKind
	network  *bool
	roots    []string
	timeout  *time.Duration
}

func parseDefaults(d *defaultsSection, path string) (defaults, error) {
	var out defaults
	if d == nil {
		return out, nil
	}
	if d.Approval != nil {
		a, err := policy.ParseApprovalPolicy(*d.Approval)
		if err != nil {
			return out, fmt.Errorf("config: %s: defaults.approval: %w", path, err)
		}
		out.approval = &a
	}
	if d.Sandbox != nil {
		k, err := policy.ParseSandboxKind(*d.Sandbox)
		if err != nil {
			return out, fmt.Errorf("config: %s: defaults.sandbox: %w", path, err)
		}
		out.kind = &k
	}
	out.network = d.Network
	if d.WritableRoots != nil {
		out.roots = make([]string, 0, len(d.WritableRoots))
		for _, r := range d.WritableRoots {
			if !filepath.IsAbs(r) {
				return out, fmt.Errorf("config: %s: defaults.writable_roots: %q is not an absolute path", path, r)
			}
			out.roots = append(out.roots, filepath.Clean(r))
		}
	}
	if d.ApprovalTimeout != nil {
		t, err := time.ParseDuration(*d.ApprovalTimeout)
		if err != nil || t < 0 {
			return out, fmt.Errorf("config: %s: defaults.approval_timeout %q is not a duration like \"30s\" or \"2m\"", path, *d.ApprovalTimeout)
		}
		out.timeout = &t
	}
	return out, nil
}
