//go:build e2e_tui

package tui

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// /answerers in a real terminal at 80×24 and 120×40: the user's command
// answerer (a program in the read-only cage) is listed Active in the
// window's words; with the panel open, a turn's ask reaches the answerer,
// and its answer shows in the panel as it arrives. The screens go to
// artifacts/tui-screens/<size>/answerers*.txt for a human to look at.
func TestTerminalAnswerers(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
			f := newFixture(t)
			prog := filepath.Join(f.dir, "corp-check")
			if err := os.WriteFile(prog, []byte("#!/bin/sh\ncat >/dev/null\necho '{\"answer\":\"pass\",\"reason\":\"not mine to say\"}'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(f.dir, "config", "warden", "config.toml")
			if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, []byte("[[answerers]]\nkind = \"command\"\nname = \"corp-check\"\ncommand = [\""+prog+"\"]\ntimeout = \"30s\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			save := screenSaver(t, f.root, size)
			tm := startTerm(t, size[0], size[1], f.env, f.argv()...)
			tm.waitFor("the status bar", "Approval: On request")
			tm.keys("/answerers", "Enter")
			save("answerers", tm.waitFor("the panel", "Answerers and hooks", "corp-check · command answerer · Active", "Asked in this order: corp-check → you"))
			// The panel stays open; the turn's ask goes to the answerer first.
			tm.keys("clean up", "Enter")
			save("answerers-live", tm.waitFor("the answer in the open panel", "Last answers", "command `corp-check` passed shell.exec", "not mine to say"))
			tm.keys("Escape")
			tm.waitFor("the ask, the answerer having passed", "Permission request", "rm -rf build")
			time.Sleep(grace)
			tm.keys("y")
			// The answerer passed: the human's yes runs the command.
			deadline := time.Now().Add(20 * time.Second)
			for _, err := os.Stat(filepath.Join(f.ws, "build")); !os.IsNotExist(err); _, err = os.Stat(filepath.Join(f.ws, "build")) {
				if time.Now().After(deadline) {
					t.Fatalf("build/ still there after y; screen:\n%s", tm.capture())
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
