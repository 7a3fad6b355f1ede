package gate

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
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

func testEnv(t testing.TB) tools.Env {
	return tools.Env{SessionID: "s-" + strings.ReplaceAll(t.Name(), "/", "-"), Workspace: workspace(t), Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}}
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

func text(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// invoke runs a tool directly (effects first, as the gate would) and fails
// the test on a Go error: tools report bad input as results.
func invoke(t testing.TB, tool tools.Tool, env tools.Env, args string) tools.Result {
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

// callGate runs one call through g the way the gate's tests always have:
// the tool, its arguments and the Env, with the gate's own session source.
func callGate(g *Gate, ctx context.Context, t tools.Tool, args json.RawMessage, env tools.Env) (Outcome, error) {
	return g.Call(ctx, Request{Tool: t, Args: args, Env: env})
}

// toolsTestdata holds the tools' fixtures the gate's engine tests run on.
var toolsTestdata = filepath.Join("..", "tools", "testdata")

// copyTree copies a testdata tree into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		writeFile(t, filepath.Join(dst, rel), readFile(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every file of a tree to its content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			m[rel] = readFile(t, p)
		}
		return nil
	})
	return m
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("files %v, want %v", keys(got), keys(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func keys(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}
