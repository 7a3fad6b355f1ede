package config

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// McpServerEntry is one [mcp.servers.NAME] table of the user's config.toml,
// as the Settings screen writes it: the same table a person writes by hand
// and `warden mcp list` reads (backend/mcp checks its fields).
type McpServerEntry struct {
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Sandbox is "", "cage" or "none".
	Sandbox string
}

// SaveUserMcpServer writes the server `name` into the user file at path
// (entry nil removes it); rename, when not "", is an old name whose table
// goes in the same write. Every other line of the file stays as it was when
// the table can be replaced in place; otherwise the file is re-encoded. The
// result must parse with Load's rules and pass check (backend/mcp's reading
// of the servers) before it replaces the file, atomically, mode 0600.
func SaveUserMcpServer(path, name, rename string, entry *McpServerEntry, check func(data []byte) error) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, _, generic, err := readUser(path)
	if err != nil {
		return err
	}
	want := deepCopy(generic)
	servers := mcpServers(want)
	repl := map[string][]byte{}
	if rename != "" && rename != name {
		delete(servers, rename)
		repl[mcpTableKey(rename)] = nil
	}
	var table []byte
	if entry != nil {
		servers[name] = entry.generic()
		table = entry.render(name)
	} else {
		delete(servers, name)
	}
	repl[mcpTableKey(name)] = table
	out := spliceMcp(old, repl, mcpTableKey(name), table, want)
	if out == nil {
		var buf bytes.Buffer
		enc := toml.NewEncoder(&buf)
		enc.Indent = ""
		if err := enc.Encode(want); err != nil {
			return fmt.Errorf("config: %s: %w", path, err)
		}
		out = buf.Bytes()
	}
	cfg := Default()
	f, err := Parse(out, path)
	if err == nil {
		err = cfg.apply(f, path)
	}
	if err == nil && check != nil {
		err = check(out)
	}
	if err != nil {
		return err
	}
	return writeAtomic(path, out)
}

// spliceMcp replaces (or appends) the server's table in the old text and
// returns the result only when it decodes to the intended document.
func spliceMcp(old []byte, repl map[string][]byte, key string, table []byte, want map[string]any) []byte {
	out := splice(old, repl)
	if out == nil {
		return nil
	}
	if table != nil && !bytes.Contains(out, table) {
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
			out = append(out, '\n')
		}
		out = append(out, table...)
	}
	var got map[string]any
	if _, err := toml.Decode(string(out), &got); err != nil || !reflect.DeepEqual(normal(got), normal(want)) {
		return nil
	}
	return out
}

// mcpServers is want["mcp"]["servers"], made when missing.
func mcpServers(want map[string]any) map[string]any {
	m, _ := want["mcp"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		want["mcp"] = m
	}
	s, _ := m["servers"].(map[string]any)
	if s == nil {
		s = map[string]any{}
		m["servers"] = s
	}
	return s
}

// mcpTableKey is the table's header name as splice reads it.
func mcpTableKey(name string) string { return "mcp.servers." + tomlKey(name) }

func (e *McpServerEntry) generic() map[string]any {
	out := map[string]any{}
	if e.Command != "" {
		out["command"] = e.Command
	}
	if len(e.Args) > 0 {
		args := make([]any, len(e.Args))
		for i, a := range e.Args {
			args[i] = a
		}
		out["args"] = args
	}
	if e.URL != "" {
		out["url"] = e.URL
	}
	if e.Sandbox != "" {
		out["sandbox"] = e.Sandbox
	}
	for k, m := range map[string]map[string]string{"env": e.Env, "headers": e.Headers} {
		if len(m) == 0 {
			continue
		}
		g := map[string]any{}
		for n, v := range m {
			g[n] = v
		}
		out[k] = g
	}
	return out
}

// render writes the table by hand: env and headers as inline tables, so the
// whole server is one block that splice can find and replace next time.
func (e *McpServerEntry) render(name string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", mcpTableKey(name))
	if e.Command != "" {
		fmt.Fprintf(&b, "command = %s\n", tomlString(e.Command))
	}
	if len(e.Args) > 0 {
		q := make([]string, len(e.Args))
		for i, a := range e.Args {
			q[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(q, ", "))
	}
	if e.URL != "" {
		fmt.Fprintf(&b, "url = %s\n", tomlString(e.URL))
	}
	for _, kv := range []struct {
		key string
		m   map[string]string
	}{{"env", e.Env}, {"headers", e.Headers}} {
		if len(kv.m) == 0 {
			continue
		}
		names := make([]string, 0, len(kv.m))
		for n := range kv.m {
			names = append(names, n)
		}
		sort.Strings(names)
		pairs := make([]string, len(names))
		for i, n := range names {
			pairs[i] = tomlKey(n) + " = " + tomlString(kv.m[n])
		}
		fmt.Fprintf(&b, "%s = { %s }\n", kv.key, strings.Join(pairs, ", "))
	}
	if e.Sandbox != "" {
		fmt.Fprintf(&b, "sandbox = %s\n", tomlString(e.Sandbox))
	}
	return []byte(b.String())
}

// tomlKey is a bare key when TOML allows one, else a quoted key.
func tomlKey(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0 {
		return k
	}
	return tomlString(k)
}

// tomlString is a TOML basic string: quotes, backslashes and control
// characters escaped, everything else as it is.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u` + strings.ToUpper(fmt.Sprintf("%04x", r)))
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// deepCopy copies a decoded TOML document's maps (values are immutable).
func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = deepCopy(sub)
		}
		out[k] = v
	}
	return out
}

// normal drops empty tables, which the decoder leaves out when a document
// has none, so "no servers" compares equal however it is spelled.
func normal(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			sub = normal(sub)
			if len(sub) == 0 {
				continue
			}
			v = sub
		}
		out[k] = v
	}
	return out
}
