package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/backend/cage/readers"
)

// checkUnconfined refuses to start a server outside the cage (sandbox =
// "none") whose program, or a file its arguments name, lies in the
// workspace it runs for: caged commands write there, so the code its
// trusted launch config names could be a caged command's by the next start,
// and it would run with the user's rights. Caged, the same server runs
// confined and needs no such rule.
func checkUnconfined(cfg ServerConfig) error {
	var roots []string
	for _, d := range []string{cfg.Dir, cfg.RunDir} {
		if d != "" && filepath.IsAbs(d) {
			roots = append(roots, d)
		}
	}
	if len(roots) == 0 {
		return nil
	}
	wd := cfg.Dir
	if wd == "" {
		wd = cfg.RunDir
	}
	what := fmt.Sprintf("MCP server %q's program (it runs unconfined: sandbox = \"none\"; caged it may live there)", cfg.Name)
	prog := cfg.Command
	switch {
	case strings.Contains(prog, "/") && !filepath.IsAbs(prog):
		prog = filepath.Join(wd, prog)
	case !strings.Contains(prog, "/"):
		if p, err := exec.LookPath(prog); err == nil {
			prog = p
		}
	}
	if err := readers.CheckLoad(what, prog, roots); err != nil {
		return err
	}
	for _, a := range cfg.Args {
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			continue
		}
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := readers.CheckLoad(fmt.Sprintf("MCP server %q's script %s (it runs unconfined: sandbox = \"none\")", cfg.Name, a), p, roots); err != nil {
			return err
		}
	}
	return nil
}
