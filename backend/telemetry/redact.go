package telemetry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

// What a record may say about a call's arguments. With log_arguments off
// (the default) the arguments are a SHA-256 and a size, and a signature that
// spells out a command or a path is a hash in its namespace; with it on, the
// command text and paths (never file contents, patches or prompts) go too.

// argsDigest is the SHA-256 (hex) and byte size of a call's arguments as
// logged.
func argsDigest(args json.RawMessage) (string, int) {
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:]), len(args)
}

// Signature namespaces whose text is a command or a path: the exact
// normalised command (shell=), an ssh command, a script by its path.
func sensitiveSignature(sig string) bool {
	switch {
	case strings.HasPrefix(sig, "shell="), strings.HasPrefix(sig, "ssh:"):
		return true
	case strings.HasPrefix(sig, "shell:"):
		return strings.ContainsAny(strings.TrimPrefix(sig, "shell:"), "/\\=$`'\"")
	}
	return false
}

// safeSignature is the signature as exported: as it is, or with
// log_arguments off and a command or path in it, its namespace and a
// SHA-256 ("shell=sha256:…"), so equal signatures still group.
func safeSignature(sig string, logArgs bool) string {
	if logArgs || !sensitiveSignature(sig) {
		return sig
	}
	ns := "shell="
	switch {
	case strings.HasPrefix(sig, "ssh:"):
		ns = "ssh:"
	case strings.HasPrefix(sig, "shell:"):
		ns = "shell:"
	}
	sum := sha256.Sum256([]byte(sig))
	return ns + "sha256:" + hex.EncodeToString(sum[:])
}

// argFields are the argument names whose values are command text or
// paths, exported with log_arguments on. Contents (content, patch, text,
// prompt, …) are never among them.
var commandFields = []string{"command", "cmd", "script"}
var pathFields = []string{"path", "paths", "cwd", "file", "files", "from", "to", "dir", "url", "target"}

// argText picks the command text and the paths out of a call's arguments.
func argText(args json.RawMessage) (command string, paths []string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return "", nil
	}
	for _, k := range commandFields {
		var s string
		if json.Unmarshal(m[k], &s) == nil && s != "" {
			command = s
			break
		}
	}
	for _, k := range pathFields {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var s string
		var list []string
		switch {
		case json.Unmarshal(raw, &s) == nil && s != "":
			paths = append(paths, s)
		case json.Unmarshal(raw, &list) == nil:
			for _, p := range list {
				if p != "" {
					paths = append(paths, p)
				}
			}
		}
	}
	sort.Strings(paths)
	return command, paths
}
