package mcpconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
)

// maxConfigBytes bounds a config file; anything larger is not a config.
const maxConfigBytes = 1 << 20

// Config is the merged server set and every problem found while reading it.
// A bad server is left out and reported; the good ones still load.
type Config struct {
	Servers map[string]ServerConfig
	Errors  []error
}

// UserConfigPath is $XDG_CONFIG_HOME/warden/config.toml (or its default).
func UserConfigPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("locating the user config: %w", err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "warden", "config.toml"), nil
}

// LoadConfig reads the user config at userPath (skipped when empty or
// missing) and the workspace's servers (skipped when workspace is empty):
// the [mcp.servers] tables of <workspace>/.warden/config.toml, then
// <workspace>/.mcp.json, each skipped when missing. A later file overrides
// a server of the same name; a workspace server's launch hash covers its
// directory, so trust in a user server never carries over to it.
func LoadConfig(userPath, workspace string) Config {
	cfg := Config{Servers: map[string]ServerConfig{}}
	if userPath != "" {
		if data, err := readConfigFile(userPath); err != nil {
			cfg.Errors = append(cfg.Errors, err)
		} else if data != nil {
			servers, err := ParseUserConfig(data, userPath)
			cfg.add(servers, err)
		}
	}
	if workspace == "" {
		return cfg
	}
	for _, f := range WorkspaceConfigFiles(workspace) {
		data, err := readConfigFile(f)
		if err != nil {
			cfg.Errors = append(cfg.Errors, err)
			continue
		}
		if data == nil {
			continue
		}
		var servers map[string]ServerConfig
		if filepath.Ext(f) == ".json" {
			servers, err = ParseMCPJSON(data, f)
		} else {
			servers, err = ParseUserConfig(data, f)
		}
		for name, s := range servers {
			s.Dir = workspace
			servers[name] = s
		}
		cfg.add(servers, err)
	}
	return cfg
}

// WorkspaceConfigFiles are the files of a workspace that configure MCP
// servers, in load order (a later one wins a name).
func WorkspaceConfigFiles(workspace string) []string {
	return []string{filepath.Join(workspace, ".warden", "config.toml"), filepath.Join(workspace, ".mcp.json")}
}

func (c *Config) add(servers map[string]ServerConfig, err error) {
	for name, s := range servers {
		c.Servers[name] = s
	}
	if err != nil {
		c.Errors = append(c.Errors, unjoin(err)...)
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// readConfigFile returns nil, nil for a missing file.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading MCP config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, &ConfigError{File: path, Msg: fmt.Sprintf("larger than %d bytes", maxConfigBytes)}
	}
	return data, nil
}

// ParseMCPJSON parses the conventional {"mcpServers": {...}} file. It
// returns the valid servers and, joined, one *ConfigError per bad one.
// Unknown fields of a server are errors, so a setting Warden would ignore
// (say "autoApprove") is never silently dropped.
func ParseMCPJSON(data []byte, file string) (map[string]ServerConfig, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, &ConfigError{File: file, Msg: "not a JSON object: " + err.Error()}
	}
	if top == nil {
		return nil, &ConfigError{File: file, Msg: "not a JSON object"}
	}
	rawServers, ok := top["mcpServers"]
	if !ok {
		return map[string]ServerConfig{}, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(rawServers, &entries); err != nil || entries == nil {
		return nil, &ConfigError{File: file, Field: "mcpServers", Msg: "want an object mapping server names to servers"}
	}
	servers := map[string]ServerConfig{}
	var errs []error
	for _, name := range sortedKeys(entries) {
		raw, err := decodeJSONServer(entries[name], file, name)
		if err == nil {
			var cfg ServerConfig
			if cfg, err = raw.validate(file, name); err == nil {
				servers[name] = cfg
				continue
			}
		}
		errs = append(errs, err)
	}
	return servers, errors.Join(errs...)
}

func decodeJSONServer(data json.RawMessage, file, name string) (rawServer, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return rawServer{}, &ConfigError{File: file, Server: name, Msg: "want an object"}
	}
	var r rawServer
	targets := map[string]any{
		"type": &r.Type, "command": &r.Command, "args": &r.Args, "env": &r.Env,
		"url": &r.URL, "headers": &r.Headers, "sandbox": &r.Sandbox,
	}
	want := map[string]string{
		"type": "a string", "command": "a string", "args": "an array of strings",
		"env": "an object of strings", "url": "a string", "headers": "an object of strings",
		"sandbox": "a string",
	}
	for _, key := range sortedKeys(fields) {
		target, ok := targets[key]
		if !ok {
			return rawServer{}, &ConfigError{File: file, Server: name, Field: key, Msg: "unknown field"}
		}
		if err := json.Unmarshal(fields[key], target); err != nil {
			return rawServer{}, &ConfigError{File: file, Server: name, Field: key, Msg: "want " + want[key]}
		}
	}
	return r, nil
}

// userFile is the MCP part of config.toml; other sections belong to other
// packages and are ignored here.
type userFile struct {
	MCP struct {
		Servers map[string]toml.Primitive `toml:"servers"`
	} `toml:"mcp"`
}

type tomlServer struct {
	Type    string            `toml:"type"`
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	Sandbox string            `toml:"sandbox"`
}

// ParseUserConfig reads the [mcp.servers.<name>] tables of config.toml,
// with the same fields and rules as .mcp.json.
func ParseUserConfig(data []byte, file string) (map[string]ServerConfig, error) {
	var uf userFile
	md, err := toml.Decode(string(data), &uf)
	if err != nil {
		return nil, &ConfigError{File: file, Msg: "not valid TOML: " + err.Error()}
	}
	servers := map[string]ServerConfig{}
	var errs []error
	for _, name := range sortedKeys(uf.MCP.Servers) {
		var ts tomlServer
		if err := md.PrimitiveDecode(uf.MCP.Servers[name], &ts); err != nil {
			errs = append(errs, &ConfigError{File: file, Server: name, Msg: "bad value: " + err.Error()})
			continue
		}
		if field := undecodedField(md, name); field != "" {
			errs = append(errs, &ConfigError{File: file, Server: name, Field: field, Msg: "unknown field"})
			continue
		}
		cfg, err := rawServer(ts).validate(file, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		servers[name] = cfg
	}
	return servers, errors.Join(errs...)
}

// undecodedField names a key under [mcp.servers.<name>] that no field took.
func undecodedField(md toml.MetaData, name string) string {
	for _, key := range md.Undecoded() {
		if len(key) >= 4 && key[0] == "mcp" && key[1] == "servers" && key[2] == name {
			return key[3]
		}
	}
	return ""
}
