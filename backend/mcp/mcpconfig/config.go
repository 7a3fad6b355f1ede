// Package mcpconfig is what Warden knows about MCP servers without talking
// to one: which servers the user's config.toml and a workspace
// (.warden/config.toml, .mcp.json) configure, their launch and policy
// hashes, and the key the launch hash is made with. It links no MCP client,
// so a build that runs no server (the slim `warden`, backend/assemble) can
// still tell whether a configuration needs one. Package mcp runs them.
package mcpconfig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Transport names how Warden talks to a server.
type Transport string

const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http" // streamable HTTP
)

// ServerConfig is one server as configured. Exactly one of Command and URL
// is set.
type ServerConfig struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"-"` // values may be secrets: never serialised
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"-"` // may carry tokens: never serialised
	// Source is the file the server was read from.
	Source string `json:"source"`
	// Dir is the working directory of a stdio server. Servers from a
	// workspace's .mcp.json run in the workspace and the directory is part of
	// their launch hash, because a relative command means different code in
	// another checkout.
	Dir string `json:"dir,omitempty"`
	// RunDir is the working directory of a stdio server without Dir (a
	// user-config server run for a workspace): the workspace. It is not
	// part of the launch hash, since the user's own command is the same
	// code in every workspace.
	RunDir string `json:"-"`
	// Sandbox is the stdio server's "sandbox" setting as written: "cage",
	// "none", or "" (the default, caged when the cage works; see
	// sandboxMode). It is part of the launch hash: a repository that turns
	// its server's cage off must be trusted again.
	Sandbox string `json:"sandbox,omitempty"`
}

// Sandbox settings of a stdio server.
const (
	SandboxCage = "cage" // run in the OS cage, like a shell command
	SandboxNone = "none" // run unconfined, with Warden's rights
)

// Transport says which transport the config selects.
func (c ServerConfig) Transport() Transport {
	if c.URL != "" {
		return TransportHTTP
	}
	return TransportStdio
}

// EnvNames is the sorted list of configured environment variable names.
func (c ServerConfig) EnvNames() []string { return sortedKeys(c.Env) }

// LaunchHash is what trust binds to: command, args, env names AND values,
// url, header names and values and, for workspace servers, the working
// directory. Any change re-prompts: a changed value can point the same
// command at other code (NODE_OPTIONS, PYTHONPATH) or another account.
//
// The hash is keyed (HMAC-SHA256 with a per-install key kept outside the
// database, see LoadHashKey): env and header values are often secrets, and
// an unkeyed hash of a short token in the database could be brute-forced
// back into the token.
func (c ServerConfig) LaunchHash(key []byte) string {
	pairs := func(m map[string]string) [][2]string {
		out := make([][2]string, 0, len(m))
		for _, k := range sortedKeys(m) {
			out = append(out, [2]string{k, m[k]})
		}
		return out
	}
	payload, _ := json.Marshal(struct {
		Command string      `json:"command"`
		Args    []string    `json:"args"`
		Env     [][2]string `json:"env"`
		URL     string      `json:"url"`
		Headers [][2]string `json:"headers,omitempty"`
		Dir     string      `json:"dir,omitempty"`
		Sandbox string      `json:"sandbox,omitempty"`
	}{c.Command, c.Args, pairs(c.Env), c.URL, pairs(c.Headers), c.Dir, c.Sandbox})
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	return hex.EncodeToString(mac.Sum(nil))
}

// ConfigError is one problem in a config file: the file, the server (empty
// when the whole file is bad), the field and what is wrong with it.
type ConfigError struct {
	File   string
	Server string
	Field  string
	Msg    string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Server != "" {
		fmt.Fprintf(&b, ": server %q", e.Server)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %q", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// serverNameRE keeps names usable in tool names, file names and the model's
// identifier form.
var serverNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// rawServer is the shape both config formats decode into.
type rawServer struct {
	Type    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	Sandbox string
}

// validate turns a decoded entry into a ServerConfig, or says which field is
// wrong.
func (r rawServer) validate(file, name string) (ServerConfig, error) {
	bad := func(field, format string, a ...any) (ServerConfig, error) {
		return ServerConfig{}, &ConfigError{File: file, Server: name, Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if !serverNameRE().MatchString(name) {
		return bad("", "server names use letters, digits, '_', '-' and '.', start with a letter or digit, at most 64 characters")
	}
	switch r.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp", "streamable_http":
	case "sse":
		return bad("type", "the legacy SSE transport is not supported; use streamable HTTP")
	default:
		return bad("type", "unknown transport %q (want \"stdio\" or \"http\")", r.Type)
	}
	if r.Command != "" && r.URL != "" {
		return bad("url", "set either \"command\" (stdio) or \"url\" (HTTP), not both")
	}
	cfg := ServerConfig{Name: name, Source: file}
	switch {
	case r.Command != "":
		if r.Type != "" && r.Type != "stdio" {
			return bad("type", "%q needs \"url\", but the server has \"command\"", r.Type)
		}
		if strings.ContainsRune(r.Command, 0) {
			return bad("command", "contains a NUL byte")
		}
		if len(r.Headers) > 0 {
			return bad("headers", "headers apply to HTTP servers only")
		}
		for k := range r.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return bad("env", "invalid variable name %q", k)
			}
		}
		for i, a := range r.Args {
			if strings.ContainsRune(a, 0) {
				return bad(fmt.Sprintf("args[%d]", i), "contains a NUL byte")
			}
		}
		switch r.Sandbox {
		case "", SandboxCage, SandboxNone:
		default:
			return bad("sandbox", "unknown value %q (want \"cage\" or \"none\")", r.Sandbox)
		}
		cfg.Command, cfg.Args, cfg.Env, cfg.Sandbox = r.Command, r.Args, r.Env, r.Sandbox
	case r.URL != "":
		if r.Type == "stdio" {
			return bad("type", "\"stdio\" needs \"command\", but the server has \"url\"")
		}
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("url", "want an absolute http:// or https:// URL, got %q", r.URL)
		}
		if len(r.Env) > 0 || len(r.Args) > 0 {
			return bad("env", "\"args\" and \"env\" apply to stdio servers only")
		}
		if r.Sandbox != "" {
			return bad("sandbox", "\"sandbox\" applies to stdio servers only: an HTTP server runs elsewhere")
		}
		for k := range r.Headers {
			if k == "" || strings.ContainsAny(k, " :\r\n\x00") {
				return bad("headers", "invalid header name %q", k)
			}
		}
		for k, v := range r.Headers {
			if strings.ContainsAny(v, "\r\n\x00") {
				return bad("headers", "header %q has a control character in its value", k)
			}
		}
		cfg.URL, cfg.Headers = r.URL, r.Headers
	default:
		return bad("command", "missing: set \"command\" (stdio) or \"url\" (HTTP)")
	}
	return cfg, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
