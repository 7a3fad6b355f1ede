package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/cage/readers"
)

// A server that runs unconfined is never started from code a caged
// command can write: its program or a script argument inside the
// workspace is refused, and the planted program never runs.
func TestUnconfinedServerCodeOutsideTheWorkspace(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	script := "#!/bin/sh\ntouch " + marker + "\n"
	for _, p := range []string{"bin/server", "tools/mcp.js"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		cfg    ServerConfig
		refuse string
	}{
		{"a relative program in the workspace", ServerConfig{Name: "s", Command: "./bin/server", Dir: ws}, "bin/server"},
		{"an absolute program in the workspace", ServerConfig{Name: "s", Command: filepath.Join(ws, "bin/server"), RunDir: ws}, "bin/server"},
		{"a script argument in the workspace", ServerConfig{Name: "s", Command: "sh", Args: []string{"tools/mcp.js"}, Dir: ws}, "tools/mcp.js"},
		{"a script named by an option", ServerConfig{Name: "s", Command: "sh", Args: []string{"--script=tools/mcp.js"}, Dir: ws}, "tools/mcp.js"},
		{"an installed program", ServerConfig{Name: "s", Command: "true", Dir: ws}, ""},
		{"no workspace", ServerConfig{Name: "s", Command: "true"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, finish, err := serverCommand(tc.cfg, nil)
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				finish()
				_ = cmd
				return
			}
			var re *readers.RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), `sandbox = "none"`) {
				t.Fatalf("err = %v, want a refusal naming %s", err, tc.refuse)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the planted program ran")
			}
		})
	}
}
