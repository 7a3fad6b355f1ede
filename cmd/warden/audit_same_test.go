//go:build !wardenslim

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
)

// TestOneAuditExportFormat: the file `warden audit export --permissions`
// writes is byte for byte the one the window and `warden serve` save
// (runtime.Service.ExportAudit), in both formats.
func TestOneAuditExportFormat(t *testing.T) {
	isolateHome(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.db")
	// An ask nobody answers: a request and a denial, with a comma, quotes
	// and a newline-free detail in the CSV.
	r := runToolCLI(t, "fs.write", "--workspace", ws, "--db", db, "--args", `{"path":".envrc","content":"export A=\"1, 2\""}`)
	if r.out.SessionID == "" || r.out.Decision == nil {
		t.Fatalf("no session: exit %d %s", r.code, r.stderr)
	}
	g, err := assemble.Open(context.Background(), assemble.Options{DBPath: db, Workspace: ws, Headless: true, NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, format := range []string{"csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			window, err := g.Service.ExportAudit(context.Background(), r.out.SessionID, format)
			if err != nil {
				t.Fatal(err)
			}
			code, cli, errs := runCLI(t, context.Background(), "audit", "export", "--db", db, "--session", r.out.SessionID,
				"--permissions", "--format", format)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if cli != window.Content {
				t.Errorf("the CLI and the window export differ:\nCLI:\n%s\nwindow:\n%s", cli, window.Content)
			}
			if !strings.Contains(cli, "permission_denied") || !strings.Contains(cli, "no-approver") {
				t.Errorf("export lacks the denial:\n%s", cli)
			}
		})
	}
	code, _, errs := runCLI(t, context.Background(), "audit", "export", "--db", db, "--session", r.out.SessionID, "--permissions", "--kinds", "permission_denied")
	if code != 2 || !strings.Contains(errs, "give one") {
		t.Errorf("--permissions with --kinds: exit %d %q", code, errs)
	}
}
