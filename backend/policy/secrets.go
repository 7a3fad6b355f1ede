package policy

import (
	"path/filepath"
	"sort"
	"strings"
)

// Reads of secrets (permission-model.md, "Reads of secrets"): what the OS
// cage hides from every command, a file tool reads only with a human's
// answer (SecretRead; a denial under Never). One list serves both: the
// cage's hidden paths are built by SecretPaths from DefaultSecrets, the
// user's [sandbox] deny_read and Warden's own folders, and the engine is
// compiled with that same list (Config.Secrets).

// DefaultSecrets are the secrets hidden by default, relative to the home
// folder: keys, cloud and cluster credentials, registry and forge tokens,
// password stores and keyrings, and browser profiles (cookies, saved
// passwords, history holding `warden serve` URLs).
var DefaultSecrets = []string{
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

// SecretPaths is the whole list for one user: DefaultSecrets under home,
// the deny_read entries (absolute, or "~/..."), and Warden's own folders.
// Clean, absolute, sorted, without duplicates; "/" never (it would hide
// everything). Symlinks are not resolved here (no I/O): the cage resolves
// them, and the engine is given the cage's resolved list.
func SecretPaths(home string, denyRead, warden []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
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
		if !seen[p] && p != "/" {
			seen[p] = true
			out = append(out, p)
		}
	}
	if home != "" {
		for _, d := range DefaultSecrets {
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

// Secret reports whether a file tool's read of path (absolute, resolved)
// reaches something the cage hides, and which hidden entry. A workspace
// that itself lies inside a hidden folder (the user opened it there) reads
// freely; a hidden folder inside the workspace (the home folder as
// workspace) still asks.
func (e *Engine) Secret(path, workspace string) (string, bool) {
	if len(e.secrets) == 0 || !filepath.IsAbs(path) {
		return "", false
	}
	path = filepath.Clean(path)
	for _, h := range e.secrets {
		if within(path, h) && (workspace == "" || !within(filepath.Clean(workspace), h)) {
			return h, true
		}
	}
	return "", false
}

// Secrets lists what the engine treats as hidden.
func (e *Engine) Secrets() []string { return append([]string(nil), e.secrets...) }

// readsSecret reports whether some read effect of a call reaches a secret:
// such a call leaves the fast path.
func (e *Engine) readsSecret(effects []Effect, workspace string) bool {
	if len(e.secrets) == 0 {
		return false
	}
	for i := range effects {
		if effects[i].Kind != EffectRead {
			continue
		}
		for _, p := range effects[i].Paths {
			if _, ok := e.Secret(p, workspace); ok {
				return true
			}
		}
	}
	return false
}
