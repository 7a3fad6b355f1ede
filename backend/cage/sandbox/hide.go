package sandbox

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// Hidden paths: secrets a caged command has no business reading, and
// Warden's own config and data. Each one that exists is covered inside the
// cage: a folder by an empty tmpfs, a file by an empty file, both with mode
// 0000 and read-only, so reading or writing fails with "Permission denied"
// naming the path, and nothing reaches the host. One that does not exist
// but lies in a writable root is guarded like a protected path: creating
// it (a planted SQLite -wal next to Warden's database) is undone.

// DefaultDenyRead are the secrets hidden by default, relative to the home
// folder: the policy's list (policy.DefaultSecrets), which the engine asks
// about when a file tool reads one.
var DefaultDenyRead = policy.DefaultSecrets

// hiddenPaths is the full list for a call: policy.SecretPaths (the
// defaults under home, the configured deny_read entries, Warden's own
// folders), each resolved through symlinks. Clean, absolute, sorted,
// without duplicates, and without a path another one holds: covering the
// outer one hides the inner, and covering both would have bwrap create the
// inner mount point inside the outer read-only tmpfs, which fails every
// caged call (a --db beside the config, its checkpoints under it).
func hiddenPaths(home string, denyRead, warden []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range policy.SecretPaths(home, denyRead, warden) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if !seen[p] && p != "/" {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	kept := out[:0]
	for _, p := range out {
		if _, held := hiddenUnder(kept, p); !held {
			kept = append(kept, p)
		}
	}
	return kept
}

// hiddenUnder reports the hidden path that is p or holds p, if any.
func hiddenUnder(hidden []string, p string) (string, bool) {
	for _, h := range hidden {
		if Within(h, p) {
			return h, true
		}
	}
	return "", false
}

// HiddenMentions lists the hidden paths a command's output names (the
// "Permission denied" of a read): the call's result says why.
func HiddenMentions(hidden []string, output string) []string {
	var out []string
	for _, h := range hidden {
		if strings.Contains(output, h) {
			out = append(out, h)
		}
	}
	return out
}

// listeningSockets lists the bound path sockets of the host's network
// namespace, from /proc/net/unix: what a caged process could connect() to
// once unix sockets are allowed at all.
func listeningSockets() []string {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseUnixSockets(f)
}

// parseUnixSockets reads /proc/net/unix: a header line, then one socket a
// line whose last field, when there are eight, is its path ("@..." for an
// abstract name, which a file mount cannot cover).
func parseUnixSockets(r io.Reader) []string {
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(r)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		p := fields[len(fields)-1]
		if !strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, filepath.Clean(p))
	}
	sort.Strings(out)
	return out
}
