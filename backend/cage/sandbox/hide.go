package sandbox

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Hidden paths: secrets a caged command has no business reading, and
// Warden's own config and data. Each one that exists is covered inside the
// cage: a folder by an empty tmpfs, a file by an empty file, both with mode
// 0000 and read-only, so reading or writing fails with "Permission denied"
// naming the path, and nothing reaches the host. One that does not exist
// but lies in a writable root is guarded like a protected path: creating
// it (a planted SQLite -wal next to Warden's database) is undone.

// DefaultDenyRead are the secrets hidden by default, relative to the home
// folder: keys, cloud and cluster credentials, registry and forge tokens,
// password stores and keyrings, and browser profiles (cookies, saved
// passwords, history holding `warden serve` URLs).
var DefaultDenyRead = []string{
	".ssh", ".gnupg", ".aws", ".config/gcloud", ".azure", ".kube",
	".docker/config.json", ".netrc", ".git-credentials", ".config/git/credentials",
	".config/gh", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".password-store", ".local/share/keyrings", ".local/share/kwalletd", ".pki",
	".config/chromium", ".config/google-chrome", ".config/google-chrome-beta",
	".config/google-chrome-unstable", ".config/BraveSoftware", ".config/microsoft-edge",
	".config/vivaldi", ".mozilla", ".librewolf",
	"snap/chromium", "snap/firefox", ".var/app/org.chromium.Chromium",
	".var/app/com.google.Chrome", ".var/app/org.mozilla.firefox",
}

// hiddenPaths is the full list for a call: the defaults under home, the
// configured deny_read entries (absolute, or "~/..."), and Warden's own
// folders. Clean, absolute, sorted, without duplicates.
func hiddenPaths(home string, denyRead, warden []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home == "" {
				return
			}
			p = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if !seen[p] && p != "/" {
			seen[p] = true
			out = append(out, p)
		}
	}
	if home != "" {
		for _, d := range DefaultDenyRead {
			add(filepath.Join(home, d))
		}
	}
	for _, d := range denyRead {
		add(d)
	}
	for _, d := range warden {
		add(d)
	}
	sort.Strings(out)
	return out
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
