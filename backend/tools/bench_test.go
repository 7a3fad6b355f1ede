package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools/sandbox"
)

// BenchmarkShellTrue measures `true` through gate + cage against the same
// bwrap command line run directly, a minimal bwrap, and plain sh -c.
func BenchmarkShellTrue(b *testing.B) {
	cage := testCage(b)
	env := testEnv(b)
	gitInit(b, env.Workspace)
	g, err := NewGate(GateConfig{
		Decider: benchDecider(),
		Journal: &journal{},
		Session: func(context.Context, Env) (policy.Session, error) {
			return policy.Session{Workspace: env.Workspace, Sandbox: env.Sandbox, Caged: true}, nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	sh := NewShellExec(cage)
	args := json.RawMessage(`{"command":"true"}`)
	prep, err := cage.Prepare(context.Background(), sandbox.Spec{Workspace: env.Workspace, Policy: env.Sandbox, Args: []string{"true"}})
	if err != nil {
		b.Fatal(err)
	}
	prep.Finish()
	sameArgv := prep.Argv
	run := func(b *testing.B, argv ...string) {
		for i := 0; i < b.N; i++ {
			if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	b.Run("gate+cage", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out, err := g.Call(context.Background(), sh, args, env)
			if err != nil || out.Result.IsError {
				b.Fatalf("%v %s", err, text(out.Result))
			}
		}
	})
	b.Run("bwrap-same-argv", func(b *testing.B) { run(b, sameArgv...) })
	b.Run("bwrap-minimal", func(b *testing.B) {
		run(b, "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--die-with-parent", "true")
	})
	b.Run("sh-c", func(b *testing.B) { run(b, "sh", "-c", "true") })
}

// searchTree makes a 10,000-file tree where one file in four holds a match.
func searchTree(b *testing.B) string {
	b.Helper()
	ws := workspace(b)
	body := strings.Repeat("nothing to see here, just a line of text\n", 20)
	for i := 0; i < 10000; i++ {
		content := body
		if i%4 == 0 {
			content += fmt.Sprintf("func target%d() {}\n", i)
		}
		p := filepath.Join(ws, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.go", i))
		if i < 100 {
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// BenchmarkSearch compares search.ripgrep with rg --json on the same tree;
// both read all 2,500 matches.
func BenchmarkSearch(b *testing.B) {
	ws := searchTree(b)
	env := Env{Workspace: ws}
	tool := NewSearchRipgrep("")
	args := json.RawMessage(`{"pattern":"func target","max_results":5000}`)
	b.Run("search.ripgrep", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r, err := tool.Invoke(context.Background(), args, env)
			if err != nil || r.IsError {
				b.Fatalf("%v %s", err, text(r))
			}
		}
	})
	b.Run("rg-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cmd := exec.Command("rg", "--json", "--no-config", "-e", "func target", "--", ".")
			cmd.Dir = ws
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchDecider() Decider {
	return &fixedDecider{d: policy.Decision{Verdict: policy.VerdictAllow, Source: "sandbox+policy"}}
}
