package model

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

const maxWireName = 64

// mcpPrefix is how the MCP adapter names server tools ("mcp-tool:srv/tool").
const mcpPrefix = "mcp-tool:"

// ValidWireName reports whether s matches ^[a-zA-Z0-9_-]{1,64}$, the tool
// name rule every supported model API enforces.
func ValidWireName(s string) bool {
	if len(s) == 0 || len(s) > maxWireName {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !wireByte(s[i]) {
			return false
		}
	}
	return true
}

func wireByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// SafeName is the deterministic wire form of an internal tool name:
// "shell.exec" → "shell_exec", "mcp-tool:srv/tool" → "mcp__srv__tool".
// Other disallowed bytes become "_"; names over 64 bytes are cut and
// suffixed with a hash so distinct long names stay distinct. SafeName alone
// is not reversible ("a.b" and "a_b" collide); NameMap is.
func SafeName(name string) string {
	var b strings.Builder
	rest := name
	if strings.HasPrefix(name, mcpPrefix) {
		b.WriteString("mcp__")
		rest = strings.ReplaceAll(name[len(mcpPrefix):], "/", "__")
	}
	for _, r := range rest {
		if r < 0x80 && wireByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" {
		s = "tool"
	}
	if len(s) > maxWireName {
		h := fnv.New32a()
		h.Write([]byte(name))
		s = fmt.Sprintf("%s_%08x", s[:maxWireName-9], h.Sum32())
	}
	return s
}

// NameMap is a reversible translation between internal tool names and wire
// names for one request. Build it from the offered tools first, then any
// names found only in history, so offered tools win collisions.
type NameMap struct {
	toWire     map[string]string
	toInternal map[string]string
}

// NewNameMap assigns each distinct name a unique wire name: SafeName, and
// on a collision a "_2", "_3"... suffix.
func NewNameMap(names ...string) *NameMap {
	m := &NameMap{toWire: make(map[string]string, len(names)), toInternal: make(map[string]string, len(names))}
	for _, n := range names {
		m.add(n)
	}
	return m
}

func (m *NameMap) add(name string) {
	if _, ok := m.toWire[name]; ok {
		return
	}
	base := SafeName(name)
	wire := base
	for i := 2; ; i++ {
		if _, taken := m.toInternal[wire]; !taken {
			break
		}
		suffix := "_" + strconv.Itoa(i)
		cut := base
		if len(cut)+len(suffix) > maxWireName {
			cut = cut[:maxWireName-len(suffix)]
		}
		wire = cut + suffix
	}
	m.toWire[name] = wire
	m.toInternal[wire] = name
}

// Wire returns the wire name of an internal name. A name the map was not
// built with gets its SafeName.
func (m *NameMap) Wire(internal string) string {
	if w, ok := m.toWire[internal]; ok {
		return w
	}
	return SafeName(internal)
}

// Internal returns the internal name of a wire name, and false when the
// model named a tool it was never offered (the name is returned unchanged so
// the loop can report "unknown tool" with what the model said).
func (m *NameMap) Internal(wire string) (string, bool) {
	if n, ok := m.toInternal[wire]; ok {
		return n, true
	}
	return wire, false
}

// RequestNames lists the tool names a request mentions: offered tools
// first, then names that appear only in history.
func RequestNames(req Request) []string {
	names := make([]string, 0, len(req.Tools))
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	for _, msg := range req.Messages {
		for _, c := range msg.ToolCalls {
			names = append(names, c.Name)
		}
	}
	return names
}
