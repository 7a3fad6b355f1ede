package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// ToolName is the name the gate, the signatures and the UI use.
func ToolName(server, tool string) string { return "mcp-tool:" + server + "/" + tool }

// safePart matches names that pass into a model identifier unchanged.
var safePart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`) })

// maxModelName is the tightest limit among the providers (64).
const maxModelName = 64

// ModelName is the identifier the model sees: mcp__<server>__<tool> when
// both parts are plain ([A-Za-z0-9-], single underscores) and it fits in 64
// characters, which makes it unambiguous. Anything else is cut and given a
// hash of the full name, so that two tools never share an identifier.
func ModelName(server, tool string) string {
	plain := "mcp__" + server + "__" + tool
	if safePart().MatchString(server) && safePart().MatchString(tool) && len(plain) <= maxModelName {
		return plain
	}
	sum := sha256.Sum256([]byte(server + "/" + tool))
	suffix := "_" + hex.EncodeToString(sum[:5])
	var b strings.Builder
	for _, r := range "mcp__" + server + "__" + tool {
		if r < 0x80 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxModelName-len(suffix) {
		s = s[:maxModelName-len(suffix)]
	}
	return s + suffix
}

// splitToolName parses "mcp-tool:<server>/<tool>". Tool names may contain
// '/', server names may not.
func splitToolName(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp-tool:")
	if !found {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "/")
	return server, tool, ok && server != "" && tool != ""
}
