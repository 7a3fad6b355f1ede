package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// callEffects computes the effects of a tool call from its arguments, the
// way each tool will once the tools registry exists. Paths are resolved
// against the workspace through symlinks (the deepest existing parent for
// paths that do not exist yet). Unknown tools get no effects, which the
// engine treats as undeclared.
func callEffects(tool string, args json.RawMessage, workspace string) ([]policy.Effect, error) {
	var a struct {
		Command   *string `json:"command"`
		Cwd       string  `json:"cwd"`
		Path      string  `json:"path"`
		Patch     string  `json:"patch"`
		WatchPath string  `json:"watch_path"`
		Action    string  `json:"action"`
		URL       string  `json:"url"`
	}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, fmt.Errorf("%s: arguments: %w", tool, err)
		}
	}
	switch tool {
	case "shell.exec":
		if a.Command == nil || strings.TrimSpace(*a.Command) == "" {
			return nil, errors.New("shell.exec: missing \"command\"")
		}
		cwd := workspace
		if a.Cwd != "" {
			cwd = resolvePath(a.Cwd, workspace)
		}
		return []policy.Effect{{Kind: policy.EffectExec, Command: *a.Command, Cwd: cwd}}, nil
	case "fs.read", "fs.list", "search.ripgrep":
		p := a.Path
		if p == "" {
			if tool != "search.ripgrep" {
				return nil, fmt.Errorf("%s: missing \"path\"", tool)
			}
			p = "."
		}
		return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{resolvePath(p, workspace)}}}, nil
	case "fs.write":
		if a.Path == "" {
			return nil, errors.New("fs.write: missing \"path\"")
		}
		return []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{resolvePath(a.Path, workspace)}}}, nil
	case "patch.apply":
		return patchEffects(a.Patch, workspace)
	case "monitor.start":
		switch {
		case a.Command != nil && *a.Command != "":
			return []policy.Effect{{Kind: policy.EffectExec, Command: *a.Command, Cwd: workspace}}, nil
		case a.WatchPath != "":
			return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{resolvePath(a.WatchPath, workspace)}}}, nil
		}
		return nil, errors.New("monitor.start: needs \"command\" or \"watch_path\"")
	case "monitor.list", "monitor.stop", "monitor.read", "write_plan", "present_plan", "task", "task_result", "ask_user", "todo_write":
		return []policy.Effect{{Kind: policy.EffectMeta}}, nil
	case "browser.action", "browser.batch":
		if a.Action == "" {
			return nil, fmt.Errorf("%s: missing \"action\"", tool)
		}
		origin := ""
		if a.URL != "" {
			o, err := originOf(a.URL)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", tool, err)
			}
			origin = o
		}
		return []policy.Effect{{Kind: policy.EffectBrowser, Action: a.Action, Origin: origin}}, nil
	case "computer.use":
		if a.Action == "" {
			return nil, errors.New("computer.use: missing \"action\"")
		}
		act := "control"
		if a.Action == "screenshot" {
			act = "screenshot"
		}
		return []policy.Effect{{Kind: policy.EffectDesktop, Action: act}}, nil
	}
	if rest, ok := strings.CutPrefix(tool, "mcp-tool:"); ok {
		server, name, ok := strings.Cut(rest, "/")
		if !ok || server == "" || name == "" {
			return nil, fmt.Errorf("%s: want mcp-tool:<server>/<tool>", tool)
		}
		return []policy.Effect{{Kind: policy.EffectMcp, Server: server, Tool: name}}, nil
	}
	return nil, nil
}

// patchEffects reads the file names of a unified diff (---/+++ headers) or
// of the "*** Update File:" patch format.
func patchEffects(patch, workspace string) ([]policy.Effect, error) {
	if strings.TrimSpace(patch) == "" {
		return nil, errors.New("patch.apply: missing \"patch\"")
	}
	var writes, deletes []string
	seen := map[string]bool{}
	add := func(list *[]string, name string) {
		name = strings.TrimSpace(name)
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			name = name[:i] // "--- a/x\t2024-01-01 ..." timestamps
		}
		if name == "" || name == "/dev/null" {
			return
		}
		if strings.HasPrefix(name, "a/") || strings.HasPrefix(name, "b/") {
			name = name[2:]
		}
		p := resolvePath(name, workspace)
		if !seen[p] {
			seen[p] = true
			*list = append(*list, p)
		}
	}
	for _, line := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(line, "--- "):
			add(&writes, line[4:])
		case strings.HasPrefix(line, "+++ "):
			add(&writes, line[4:])
		case strings.HasPrefix(line, "*** Update File: "), strings.HasPrefix(line, "*** Add File: "):
			add(&writes, line[strings.Index(line, ": ")+2:])
		case strings.HasPrefix(line, "*** Move to: "):
			add(&writes, line[len("*** Move to: "):])
		case strings.HasPrefix(line, "*** Delete File: "):
			add(&deletes, line[len("*** Delete File: "):])
		}
	}
	if len(writes) == 0 && len(deletes) == 0 {
		return nil, errors.New("patch.apply: no file names in the patch headers")
	}
	var effects []policy.Effect
	if len(writes) > 0 {
		effects = append(effects, policy.Effect{Kind: policy.EffectWrite, Paths: writes})
	}
	if len(deletes) > 0 {
		effects = append(effects, policy.Effect{Kind: policy.EffectDestructive, Paths: deletes, Why: "the patch deletes files"})
	}
	return effects, nil
}

// originOf gives scheme://host:port with the scheme's default port.
func originOf(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("url %q: %w", raw, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("url %q: want scheme://host", raw)
	}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https", "wss":
			port = "443"
		case "http", "ws":
			port = "80"
		}
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" {
		return u.Scheme + "://" + host, nil
	}
	return u.Scheme + "://" + host + ":" + port, nil
}

// resolvePath makes p absolute against base and resolves symlinks through
// its deepest existing parent, so a link inside the workspace that points
// outside is seen for where it writes.
func resolvePath(p, base string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// resolveDir resolves a directory flag, which must exist.
func resolveDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return r, nil
}
