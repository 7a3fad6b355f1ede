package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Answerers beside the human (backend/gate): who answers an ask before a
// human does, and the hooks around every call.
//
//	[[answerers]]                      # asked in this order, the human last
//	kind = "command"                   # an external program, run in a read-only cage
//	name = "corp-check"                # default: the program's base name
//	command = ["/opt/corp/check", "--strict"]
//	timeout = "10s"                    # default 10s, at most 2m
//
//	[[answerers]]
//	kind = "model"                     # a reviewer model (user file only)
//	model = "anthropic:claude-haiku-4-5"
//	base_url = ""                      # default: the provider's
//	budget = 200                       # reviews per session, then the human
//	timeout = "30s"
//
//	[[hooks]]
//	name = "corp-guard"
//	when = "before"                    # before: may ask or refuse; after: observes
//	command = ["/opt/corp/guard"]
//	tools = ["shell.exec"]             # default: every tool
//	timeout = "5s"
//
//	[remote]                           # approval from another device
//	address = "192.168.1.20:8788"      # default: warden serve's own, else loopback
//	ttl = "3m"                         # default 3m, at most 15m
//
// A workspace file's answerers and hooks come with the repository: they
// run only after the user trusted them (by the hash of their config and of
// their program file), and a workspace file may not name a reviewer model
// (it would choose where your actions are sent) nor [remote].

// Tiers an answerer or hook comes from.
const (
	TierUser      = "user"
	TierWorkspace = "workspace"
)

// Answerer kinds.
const (
	AnswererCommand = "command"
	AnswererModel   = "model"
)

// Hook times.
const (
	HookBefore = "before"
	HookAfter  = "after"
)

// Defaults and bounds of the answerers' settings.
const (
	DefaultCommandTimeout = 10 * time.Second
	DefaultModelTimeout   = 30 * time.Second
	MaxAnswererTimeout    = 2 * time.Minute
	DefaultReviewBudget   = 200
	DefaultRemoteTTL      = 3 * time.Minute
	MaxRemoteTTL          = 15 * time.Minute
)

// AnswererSpec is one [[answerers]] entry, resolved.
type AnswererSpec struct {
	Kind    string        `json:"kind" ts:"'command' | 'model'"`
	Name    string        `json:"name"`
	Command []string      `json:"command,omitempty"`
	Timeout time.Duration `json:"timeout"`
	Model   string        `json:"model,omitempty"`
	BaseURL string        `json:"base_url,omitempty"`
	// Budget is how many asks of one session a reviewer model reviews;
	// the rest go to the human.
	Budget int `json:"budget,omitempty"`
	// Tier is user or workspace; File the file it was read from.
	Tier string `json:"tier" ts:"'user' | 'workspace'"`
	File string `json:"file"`
}

// HookSpec is one [[hooks]] entry, resolved.
type HookSpec struct {
	Name    string        `json:"name"`
	When    string        `json:"when" ts:"'before' | 'after'"`
	Command []string      `json:"command"`
	Timeout time.Duration `json:"timeout"`
	// Tools limits the hook to these tools (empty: every tool).
	Tools []string `json:"tools,omitempty"`
	Tier  string   `json:"tier" ts:"'user' | 'workspace'"`
	File  string   `json:"file"`
}

// Remote is the [remote] table: where a link that answers an ask from
// another device is served, and how long it lives.
type Remote struct {
	Address string        `json:"address,omitempty"`
	TTL     time.Duration `json:"ttl"`
}

type answererEntry struct {
	Kind    string   `toml:"kind"`
	Name    string   `toml:"name"`
	Command []string `toml:"command"`
	Timeout string   `toml:"timeout"`
	Model   string   `toml:"model"`
	BaseURL string   `toml:"base_url"`
	Budget  *int     `toml:"budget"`
}

type hookEntry struct {
	Name    string   `toml:"name"`
	When    string   `toml:"when"`
	Command []string `toml:"command"`
	Timeout string   `toml:"timeout"`
	Tools   []string `toml:"tools"`
}

type remoteSection struct {
	Address string `toml:"address"`
	TTL     string `toml:"ttl"`
}

// validName is what an answerer's or hook's name may be: it is shown in
// backquotes and keys its trust.
// Compiled on first use: a process that reads no answerer (one `warden
// tool` call) does not pay for it at start.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// parseAnswerers resolves a file's [[answerers]] and [[hooks]]; every
// problem is an error naming the file and the entry. A workspace file may
// not name a reviewer model: that is a warning, and the entry is left out.
func parseAnswerers(f file, path, tier string) (ans []AnswererSpec, hooks []HookSpec, warnings []string, err error) {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("config: %s: "+format, append([]any{path}, a...)...))
	}
	names := map[string]bool{}
	for i, e := range f.Answerers {
		at := fmt.Sprintf("answerers[%d]", i+1)
		s := AnswererSpec{Kind: e.Kind, Name: e.Name, Command: e.Command, Model: e.Model, BaseURL: e.BaseURL, Tier: tier, File: path}
		switch e.Kind {
		case AnswererCommand:
			if len(e.Command) == 0 || strings.TrimSpace(e.Command[0]) == "" {
				bad("%s: kind = \"command\" needs command = [\"program\", \"arg\", ...]", at)
				continue
			}
			if e.Model != "" || e.BaseURL != "" || e.Budget != nil {
				bad("%s: model, base_url and budget belong to kind = \"model\"", at)
			}
			if s.Name == "" {
				s.Name = baseName(e.Command[0])
			}
			s.Timeout = DefaultCommandTimeout
		case AnswererModel:
			if tier == TierWorkspace {
				warnings = append(warnings, fmt.Sprintf("%s: %s: a reviewer model is ignored in a workspace file (it would choose where your actions are sent)", path, at))
				continue
			}
			if len(e.Command) > 0 {
				bad("%s: command belongs to kind = \"command\"", at)
			}
			p, id, ok := strings.Cut(e.Model, ":")
			if !ok || id == "" || (p != "anthropic" && p != "openai") {
				bad("%s: model %q is not \"anthropic:MODEL\" or \"openai:MODEL\"", at, e.Model)
				continue
			}
			if s.Name == "" {
				s.Name = id
			}
			s.Timeout, s.Budget = DefaultModelTimeout, DefaultReviewBudget
			if e.Budget != nil {
				if *e.Budget < 1 {
					bad("%s: budget %d is below 1", at, *e.Budget)
				}
				s.Budget = *e.Budget
			}
		case "":
			bad("%s: kind is missing (command or model)", at)
			continue
		default:
			bad("%s: kind %q is not command or model (the human is always last and needs no entry)", at, e.Kind)
			continue
		}
		if e.Timeout != "" {
			t, terr := time.ParseDuration(e.Timeout)
			if terr != nil || t <= 0 || t > MaxAnswererTimeout {
				bad("%s: timeout %q is not a duration between 1ms and %s", at, e.Timeout, MaxAnswererTimeout)
			}
			s.Timeout = t
		}
		if !validName().MatchString(s.Name) {
			bad("%s: name %q may hold letters, digits, '.', '_' and '-' (64 at most)", at, s.Name)
		}
		if names["answerer:"+s.Name] {
			bad("%s: a second answerer named %q", at, s.Name)
		}
		names["answerer:"+s.Name] = true
		ans = append(ans, s)
	}
	for i, e := range f.Hooks {
		at := fmt.Sprintf("hooks[%d]", i+1)
		if len(e.Command) == 0 || strings.TrimSpace(e.Command[0]) == "" {
			bad("%s: needs command = [\"program\", \"arg\", ...]", at)
			continue
		}
		h := HookSpec{Name: e.Name, When: e.When, Command: e.Command, Timeout: DefaultCommandTimeout, Tools: e.Tools, Tier: tier, File: path}
		if h.Name == "" {
			h.Name = baseName(e.Command[0])
		}
		switch e.When {
		case HookBefore, HookAfter:
		case "":
			bad("%s: when is missing (before or after)", at)
		default:
			bad("%s: when %q is not before or after", at, e.When)
		}
		if e.Timeout != "" {
			t, terr := time.ParseDuration(e.Timeout)
			if terr != nil || t <= 0 || t > MaxAnswererTimeout {
				bad("%s: timeout %q is not a duration between 1ms and %s", at, e.Timeout, MaxAnswererTimeout)
			}
			h.Timeout = t
		}
		for _, t := range e.Tools {
			if strings.TrimSpace(t) == "" {
				bad("%s: tools holds an empty name", at)
			}
		}
		if !validName().MatchString(h.Name) {
			bad("%s: name %q may hold letters, digits, '.', '_' and '-' (64 at most)", at, h.Name)
		}
		if names["hook:"+h.Name] {
			bad("%s: a second hook named %q", at, h.Name)
		}
		names["hook:"+h.Name] = true
		hooks = append(hooks, h)
	}
	return ans, hooks, warnings, errors.Join(errs...)
}

// parseRemote resolves [remote] (user file only).
func parseRemote(s *remoteSection, path string) (Remote, error) {
	r := Remote{TTL: DefaultRemoteTTL}
	if s == nil {
		return r, nil
	}
	if s.Address != "" {
		if _, _, err := net.SplitHostPort(s.Address); err != nil {
			return r, fmt.Errorf("config: %s: remote.address %q is not host:port", path, s.Address)
		}
		r.Address = s.Address
	}
	if s.TTL != "" {
		t, err := time.ParseDuration(s.TTL)
		if err != nil || t < 10*time.Second || t > MaxRemoteTTL {
			return r, fmt.Errorf("config: %s: remote.ttl %q is not a duration between 10s and %s", path, s.TTL, MaxRemoteTTL)
		}
		r.TTL = t
	}
	return r, nil
}

// ReadWorkspaceAnswerers reads a workspace's own answerers and hooks from
// <workspace>/.warden/config.toml (missing: none). They come with the
// repository: the caller runs them only once the user trusted them.
func ReadWorkspaceAnswerers(workspace string) ([]AnswererSpec, []HookSpec, []string, error) {
	path := WorkspacePath(workspace)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	f, err := Parse(data, path)
	if err != nil {
		return nil, nil, nil, err
	}
	return parseAnswerers(f, path, TierWorkspace)
}

// ConfigHash is what a trust in an answerer vouches for of its entry:
// every field that changes what runs or how it answers.
func (s AnswererSpec) ConfigHash() string {
	return hashOf(struct {
		Kind, Name, Model, BaseURL string
		Command                    []string
		Timeout                    time.Duration
		Budget                     int
	}{s.Kind, s.Name, s.Model, s.BaseURL, s.Command, s.Timeout, s.Budget})
}

// ConfigHash is what a trust in a hook vouches for of its entry.
func (h HookSpec) ConfigHash() string {
	return hashOf(struct {
		Name, When string
		Command    []string
		Timeout    time.Duration
		Tools      []string
	}{h.Name, h.When, h.Command, h.Timeout, h.Tools})
}

func hashOf(v any) string {
	b, _ := json.Marshal(v) // plain strings, slices and ints: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func baseName(program string) string {
	program = strings.TrimRight(program, "/")
	if i := strings.LastIndex(program, "/"); i >= 0 {
		program = program[i+1:]
	}
	return program
}
