//go:build !wardenslim

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/gate/lineup"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// A one-shot call's session is reserved and written with the call's first
// record (store.ReserveSession). What the workspace has recorded must hold
// for it exactly as for a created session: a trusted workspace hook runs
// (reading its trust through the reserved session must not fail open) and
// a workspace grant answers the ask it covers.
func TestToolReservedSessionKeepsTheWorkspaceRecords(t *testing.T) {
	ctx := context.Background()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	// setup prepares a workspace and its database with what the case
	// needs recorded, through a session of its own.
	type setup func(t *testing.T, g *assemble.Graph, sess store.Session, ws string)
	trustGuard := func(t *testing.T, g *assemble.Graph, sess store.Session, ws string) {
		if err := os.MkdirAll(filepath.Join(ws, "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "tools", "guard.sh"),
			[]byte("#!/bin/sh\ncat >/dev/null; echo '{\"answer\":\"deny\",\"reason\":\"guard ran\"}'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.MkdirAll(filepath.Join(ws, ".warden"), 0o755)
		if err := os.WriteFile(config.WorkspacePath(ws), []byte("[[hooks]]\nname = \"corp-guard\"\nwhen = \"before\"\ncommand = [\"./tools/guard.sh\"]\ntimeout = \"20s\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Lineup.Trust(ctx, sess.ID, ws, lineup.RoleHook, "corp-guard", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		setup   setup
		args    []string
		code    int
		verdict string
		layer   string
		made    bool // the call's file exists afterwards
	}{
		{"untrusted workspace hook does not run", func(t *testing.T, g *assemble.Graph, sess store.Session, ws string) {
			trustGuard(t, g, sess, ws)
			if err := g.Lineup.Untrust(ctx, sess.ID, lineup.RoleHook, "corp-guard"); err != nil {
				t.Fatal(err)
			}
		}, []string{"fs.write", "--args", `{"path":"made.txt","content":"x"}`}, 0, "allow", "", true},
		{"trusted workspace hook refuses a write", trustGuard,
			[]string{"fs.write", "--args", `{"path":"made.txt","content":"x"}`}, 1, "deny", "hook:corp-guard", false},
		{"trusted workspace hook refuses a shell command", trustGuard,
			[]string{"shell.exec", "--args", `{"command":"touch made.txt"}`}, 1, "deny", "hook:corp-guard", false},
		{"a workspace grant answers the ask", func(t *testing.T, g *assemble.Graph, sess store.Session, ws string) {
			r := runToolCLI(t, "fs.write", "--approval", "always", "--workspace", ws, "--db", g.Store.Path(), "--args", `{"path":"made.txt","content":"x"}`)
			if r.out.Decision == nil || r.out.Decision.Signature == "" {
				t.Fatalf("no decision to grant: %+v %s", r.out, r.stderr)
			}
			if _, err := g.Store.AddGrant(ctx, store.NewGrant{WorkspaceID: sess.WorkspaceID, SessionID: sess.ID,
				Signature: r.out.Decision.Signature, Scope: policy.ScopeWorkspace, Reasons: []policy.Reason{policy.ReasonPolicyAlways}}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
				t.Fatal("made.txt written without an answer")
			}
		}, []string{"fs.write", "--approval", "always", "--args", `{"path":"made.txt","content":"x"}`}, 0, "allow", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(t.TempDir(), "warden.db")
			g, err := assemble.Open(ctx, assemble.Options{DBPath: db, Workspace: ws, Headless: true, NoModel: true, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			sess, err := g.Store.CreateSession(ctx, store.NewSession{Workspace: ws, Title: "setup"})
			if err != nil {
				t.Fatal(err)
			}
			tc.setup(t, g, sess, ws)
			g.Close()

			r := runToolCLI(t, append(tc.args, "--workspace", ws, "--db", db)...)
			if r.code != tc.code || r.out.Decision == nil || string(r.out.Decision.Verdict) != tc.verdict || r.out.Decision.LayerDetail != tc.layer && tc.layer != "" {
				t.Fatalf("exit %d, decision %+v; want %d %s by %q; stderr %s", r.code, r.out.Decision, tc.code, tc.verdict, tc.layer, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(ws, "made.txt")); (err == nil) != tc.made {
				t.Fatalf("made.txt exists: %v, want %v", err == nil, tc.made)
			}
			// The session was written with the call's records, in the
			// workspace the setup recorded in.
			st, err := openStore(ctx, db, store.MustExist())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			got, err := st.Session(ctx, r.out.SessionID)
			if err != nil || got.WorkspaceID != sess.WorkspaceID || got.Version < 2 {
				t.Fatalf("the call's session in the file: %+v, %v; want workspace %s with its records", got, err, sess.WorkspaceID)
			}
		})
	}
}
