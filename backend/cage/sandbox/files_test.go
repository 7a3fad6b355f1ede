package sandbox

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// Files are placed read-only inside the cage: the caged process runs and
// reads exactly those bytes, cannot change them, and the host sees nothing
// at their path.
func TestFilesPlacedInTheCage(t *testing.T) {
	c := newCage(t, Config{})
	ws := testDir(t)
	big := bytes.Repeat([]byte("x"), 300<<10) // beyond a pipe's buffer
	for _, tc := range []struct {
		name   string
		files  []File
		script string
		want   string
	}{
		{"an executable script runs", []File{{Path: "/run/warden-answerer/a/check", Data: []byte("#!/bin/sh\necho from-the-copy\n"), Exec: true}},
			"/run/warden-answerer/a/check", "from-the-copy"},
		{"a data file is read-only", []File{{Path: "/run/w/data", Data: []byte("hello")}},
			"cat /run/w/data; echo; { echo more >> /run/w/data; } 2>/dev/null || echo refused; test -x /run/w/data || echo not-exec", "hello\nrefused\nnot-exec"},
		{"any size", []File{{Path: "/run/w/big", Data: big}}, "wc -c < /run/w/big", "307200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, pol := range []policy.SandboxPolicy{{Kind: policy.ReadOnly}, {Kind: policy.WorkspaceWrite}} {
				p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: pol, Args: []string{"bash", "-c", tc.script}, Files: tc.files})
				if err != nil {
					t.Fatal(err)
				}
				out, err := p.Cmd.CombinedOutput()
				p.Finish()
				if err != nil || strings.TrimSpace(string(out)) != tc.want {
					t.Fatalf("%s: %v %q, want %q", pol.Kind, err, out, tc.want)
				}
			}
			for _, f := range tc.files {
				if _, err := os.Lstat(f.Path); err == nil {
					t.Fatalf("%s exists on the host", f.Path)
				}
			}
		})
	}
	for _, bad := range []string{"/etc/x", "/run/../etc/x", "relative", "/run", "/run/a/../../x"} {
		if p, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: policy.SandboxPolicy{Kind: policy.ReadOnly},
			Args: []string{"true"}, Files: []File{{Path: bad}}}); err == nil {
			p.Finish()
			t.Errorf("a file at %q was placed", bad)
		}
	}
	cont := New(Config{Mode: ModeContainer})
	cont.Detect(context.Background())
	if p, err := cont.Prepare(context.Background(), Spec{Workspace: ws, Args: []string{"true"}, Files: []File{{Path: "/run/x/y"}}}); err == nil {
		p.Finish()
		t.Fatal("container mode placed a file")
	}
}
