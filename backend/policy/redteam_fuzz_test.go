package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

// cleanSegment turns fuzz text into one harmless path component.
func cleanSegment(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return -1
	}, s)
	if len(s) > 12 {
		s = s[:12]
	}
	if s == "" || s[0] == '-' {
		s = "d" + s // a leading dash would make it an option
	}
	return s
}

var (
	gitdirShapes = []string{".git", ".git/worktrees/%s", ".git/modules/%s", ".git/modules/%s/modules/lib", "%s/.git",
		"vendor/%s/.git", "%s/.git/modules/x"}
	metaNames   = []string{"config", "config.worktree", "commondir", "gitdir", "hooks/pre-commit", "hooks/post-checkout", "info/attributes", "info/exclude"}
	writeShapes = []string{"echo x > %s", "printf 'x' >> %s", "cp /tmp/x %s", "tee %s < /tmp/x", "sed -i s/a/b/ %s",
		"install -m 755 /tmp/x %s", "mv /tmp/x %s", "git config -f %s core.pager id", "touch %s", "ln -sf /tmp/x %s",
		"dd if=/tmp/x of=%s", "rsync /tmp/x %s"}
)

// FuzzProtectedAtDepth writes git metadata of a gitdir at any depth with
// every write spelling: the engine must ask for ProtectedPath (or refuse).
func FuzzProtectedAtDepth(f *testing.F) {
	f.Add("sub", uint8(0), uint8(0), uint8(0), "")
	f.Add("a", uint8(3), uint8(4), uint8(7), "deep/er")
	e := New(Config{})
	f.Fuzz(func(t *testing.T, name string, shape, meta, how uint8, prefix string) {
		dir := strings.ReplaceAll(gitdirShapes[int(shape)%len(gitdirShapes)], "%s", cleanSegment(name))
		var parts []string
		for _, p := range strings.Split(prefix, "/") {
			if p != "" && len(parts) < 4 {
				parts = append(parts, cleanSegment(p))
			}
		}
		rel := filepath.Join(append(parts, dir, metaNames[int(meta)%len(metaNames)])...)
		cmd := strings.ReplaceAll(writeShapes[int(how)%len(writeShapes)], "%s", rel)
		d := e.Decide(shell(cmd), session(WorkspaceWrite, OnRequest))
		if d.Verdict == VerdictAllow || d.Verdict == VerdictAsk && !containsReason(d.Reasons, ReasonProtectedPath) {
			t.Fatalf("%q: %s %v, want ProtectedPath\n%s", cmd, d.Verdict, d.Reasons, traceText(d))
		}
		if d.Verdict == VerdictAsk && d.AlwaysRefused == "" {
			t.Fatalf("%q: ask for a protected path offers always", cmd)
		}
		if cage, _ := ProtectedTier(ws+"/"+rel, ws); !cage {
			t.Fatalf("%s is not cage-protected", rel)
		}
	})
}

// FuzzOutsideWorkspace writes outside the workspace under full access: on
// request it asks (OutsideWorkspace or ProtectedPath), never allows it
// unless the place is protected, and /tmp never asks.
func FuzzOutsideWorkspace(f *testing.F) {
	f.Add("srv", "data", uint8(0))
	f.Add("home", "me", uint8(3))
	e := New(Config{})
	f.Fuzz(func(t *testing.T, a, b string, how uint8) {
		p := "/" + cleanSegment(a) + "/" + cleanSegment(b) + "/out.txt"
		if strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "/work/") {
			return
		}
		cmd := strings.ReplaceAll(writeShapes[int(how)%len(writeShapes)], "%s", p)
		d := e.Decide(shell(cmd), session(DangerFullAccess, OnRequest))
		if d.Verdict != VerdictAsk || !containsReason(d.Reasons, ReasonOutsideWorkspace) && !containsReason(d.Reasons, ReasonProtectedPath) {
			t.Fatalf("%q under full access + on-request: %s %v", cmd, d.Verdict, d.Reasons)
		}
		_, edit := ProtectedTier(p, ws)
		if d := e.Decide(shell(cmd), session(DangerFullAccess, Never)); (d.Verdict == VerdictAllow) == edit {
			t.Fatalf("%q under full access + never: %s (protected=%v)", cmd, d.Verdict, edit)
		}
	})
}

// FuzzTmpWorkspaceMove puts the workspace under /tmp and moves a file out
// of it: the move is refused in every spelling, while a move inside stays
// allowed.
func FuzzTmpWorkspaceMove(f *testing.F) {
	f.Add("ws", "main.go", "x", uint8(0))
	f.Add("proj", "src", "old", uint8(2))
	e := New(Config{})
	shapes := []string{"mv %s ../%d", "mv %s /tmp/%d", "mv -t /tmp %s", "mv -f %s ../../%d", "cd .. && mv %w/%s %d", "mv ./%s* /tmp/%d/"}
	f.Fuzz(func(t *testing.T, w, src, dst string, how uint8) {
		s := session(WorkspaceWrite, OnRequest)
		s.Workspace = "/tmp/" + cleanSegment(w)
		cmd := shapes[int(how)%len(shapes)]
		// The destination is never the workspace itself.
		cmd = strings.NewReplacer("%s", cleanSegment(src), "%d", "out-"+cleanSegment(dst), "%w", filepath.Base(s.Workspace)).Replace(cmd)
		call := Call{Tool: "shell.exec", Effects: []Effect{{Kind: EffectExec, Command: cmd, Cwd: s.Workspace}}}
		if d := e.Decide(call, s); d.Verdict != VerdictDeny {
			t.Fatalf("%q in %s: %s, want deny\n%s", cmd, s.Workspace, d.Verdict, traceText(d))
		}
		inside := Call{Tool: "shell.exec", Effects: []Effect{{Kind: EffectExec, Command: "mv " + cleanSegment(src) + " out-" + cleanSegment(dst), Cwd: s.Workspace}}}
		if d := e.Decide(inside, s); d.Verdict != VerdictAllow {
			t.Fatalf("a move inside the workspace: %s %s", d.Verdict, d.Detail)
		}
	})
}
