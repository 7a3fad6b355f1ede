package postcall

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// fakeCheckpoint records what it was asked to revert and removes it (every
// path in these cases was created by the call).
type fakeCheckpoint struct {
	ws    string
	asked []string
}

func (f *fakeCheckpoint) Finish(context.Context, *tools.Result) gate.Changes { return gate.Changes{} }

func (f *fakeCheckpoint) Revert(_ context.Context, paths []string) ([]string, error) {
	f.asked = append(f.asked, paths...)
	for _, p := range paths {
		_ = os.RemoveAll(filepath.Join(f.ws, p))
	}
	return paths, nil
}

func write(t *testing.T, ws, rel, content string) store.FileChange {
	t.Helper()
	p := filepath.Join(ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return store.FileChange{Path: rel, Change: store.ChangeCreated}
}

func TestAfterCall(t *testing.T) {
	gitdirFiles := func(dir, config string) func(t *testing.T, ws string) []store.FileChange {
		return func(t *testing.T, ws string) []store.FileChange {
			return []store.FileChange{
				write(t, ws, dir+"/HEAD", "ref: refs/heads/main\n"),
				write(t, ws, dir+"/objects/.keep", ""),
				write(t, ws, dir+"/refs/heads/.keep", ""),
				write(t, ws, dir+"/config", config),
			}
		}
	}
	for _, tc := range []struct {
		name   string
		setup  string // bash in the workspace, before the call
		files  func(t *testing.T, ws string) []store.FileChange
		source string
		revert []string // nil: nothing reported
	}{
		{name: "a repository whose config runs something", files: gitdirFiles("data", "[core]\n\tfsmonitor = touch x\n"),
			revert: []string{"data/HEAD", "data/config", "data/objects/.keep", "data/refs/heads/.keep"}},
		{name: "the same, approved by a human", files: gitdirFiles("data", "[core]\n\tfsmonitor = touch x\n"), source: "human:once"},
		{name: "a repository as git init makes it", files: gitdirFiles("plain", "[core]\n\trepositoryformatversion = 0\n\tbare = true\n")},
		{name: "ordinary files", files: func(t *testing.T, ws string) []store.FileChange {
			return []store.FileChange{write(t, ws, "src/main.go", "package main\n"), write(t, ws, "config", "x = 1\n")}
		}},
		{name: "a hook in the repository's hooks path", setup: "git init -q && git config core.hooksPath .husky",
			files: func(t *testing.T, ws string) []store.FileChange {
				return []store.FileChange{write(t, ws, ".husky/pre-commit", "#!/bin/sh\n")}
			}, revert: []string{".husky/pre-commit"}},
		{name: "an include target", setup: "git init -q && git config include.path ../team.gitconfig",
			files: func(t *testing.T, ws string) []store.FileChange {
				return []store.FileChange{write(t, ws, "team.gitconfig", "[core]\n\tpager = x\n")}
			}, revert: []string{"team.gitconfig"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if tc.setup != "" {
				cmd := exec.Command("bash", "-c", tc.setup)
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("setup: %v %s", err, out)
				}
			}
			files := tc.files(t, ws)
			cp := &fakeCheckpoint{ws: ws}
			source := tc.source
			if source == "" {
				source = "sandbox+policy"
			}
			info := gate.CallInfo{CallID: "c1", Tool: "fs.write", Workspace: ws, Decision: policy.Decision{Verdict: policy.VerdictAllow, Source: source}}
			rep, err := New(nil).AfterCall(context.Background(), info, gate.Changes{Checkpoint: cp,
				Event: store.WorkspaceChanged{CallID: "c1", Workspace: ws, Files: files}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.revert == nil {
				if len(rep.Events) != 0 || len(cp.asked) != 0 {
					t.Fatalf("reported %+v, reverted %v", rep.Events, cp.asked)
				}
				return
			}
			sort.Strings(cp.asked)
			want := append([]string(nil), tc.revert...)
			sort.Strings(want)
			if !reflect.DeepEqual(cp.asked, want) {
				t.Fatalf("reverted %v, want %v", cp.asked, want)
			}
			if len(rep.Events) != 1 || !strings.Contains(rep.Note, "reverted") {
				t.Fatalf("events %+v note %q", rep.Events, rep.Note)
			}
			u := rep.Events[0].(store.UnsafeChangeReverted)
			if u.CallID != "c1" || len(u.Findings) == 0 || u.Findings[0].Reader != policy.ReaderGit {
				t.Fatalf("event %+v", u)
			}
		})
	}
}
