package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// workspace is a fresh, symlink-resolved workspace folder.
func workspace(t testing.TB) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func testEnv(t testing.TB) Env {
	return Env{SessionID: "s-" + strings.ReplaceAll(t.Name(), "/", "-"), Workspace: workspace(t), Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}}
}

func testCage(t testing.TB) *sandbox.Cage {
	t.Helper()
	c := sandbox.New(sandbox.Config{})
	if st := c.Detect(context.Background()); !st.Available {
		t.Fatalf("the cage must work on this machine: %s", st.Reason)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func text(r Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// invoke runs a tool directly (effects first, as the gate would) and fails
// the test on a Go error: tools report bad input as results.
func invoke(t testing.TB, tool Tool, env Env, args string) Result {
	t.Helper()
	res, err := tool.Invoke(context.Background(), json.RawMessage(args), env)
	if err != nil {
		t.Fatalf("%s: Invoke returned an error instead of a result: %v", tool.Name(), err)
	}
	return res
}

func gitInit(t testing.TB, dir string) {
	t.Helper()
	for _, a := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, a...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", a, err, out)
		}
	}
}

// streams collects what a tool streams to Env.Output.
type streams struct {
	mu     sync.Mutex
	chunks map[string]*strings.Builder
}

func (s *streams) out(stream string, chunk []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chunks == nil {
		s.chunks = map[string]*strings.Builder{}
	}
	if s.chunks[stream] == nil {
		s.chunks[stream] = &strings.Builder{}
	}
	s.chunks[stream].Write(chunk)
}

func (s *streams) get(stream string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.chunks[stream]; b != nil {
		return b.String()
	}
	return ""
}
