package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeHome is a home folder holding secrets in the default places.
type fakeHome struct {
	home    string
	secrets map[string]string // path -> content
}

func newFakeHome(t *testing.T) fakeHome {
	t.Helper()
	h := fakeHome{home: testDir(t), secrets: map[string]string{}}
	for rel, content := range map[string]string{
		".ssh/id_ed25519":                       "SSH-PRIVATE-KEY",
		".config/chromium/Default/Cookies":      "CHROMIUM-COOKIE",
		".config/google-chrome/Default/History": "CHROME-HISTORY-TOKEN",
		".mozilla/firefox/x.default/key4.db":    "FIREFOX-KEY",
		".aws/credentials":                      "AWS-SECRET",
		".netrc":                                "NETRC-PASSWORD",
		".git-credentials":                      "GIT-CREDENTIAL",
		".docker/config.json":                   "DOCKER-AUTH",
		".config/warden/config.toml":            "api_key = \"WARDEN-API-KEY\"",
		".local/share/warden/warden.db":         "WARDEN-DB-ROWS",
		"elsewhere/private.txt":                 "DENY-READ-EXTRA",
	} {
		p := filepath.Join(h.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		h.secrets[p] = content
	}
	return h
}

func TestSecretsAreHidden(t *testing.T) {
	h := newFakeHome(t)
	ws := gitRepo(t)
	// A database given with --db inside the workspace: its files.
	db := filepath.Join(ws, "state", "warden.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{db, db + "-wal"} {
		if err := os.WriteFile(f, []byte("IN-WORKSPACE-DB"), 0o600); err != nil {
			t.Fatal(err)
		}
		h.secrets[f] = "IN-WORKSPACE-DB"
	}
	c := newCage(t, Config{
		Home:      h.home,
		Protected: []string{filepath.Join(h.home, ".config/warden"), filepath.Join(h.home, ".local/share/warden"), db, db + "-wal", db + "-shm"},
		DenyRead:  []string{filepath.Join(h.home, "elsewhere")},
	})
	for p := range h.secrets {
		t.Run(strings.TrimPrefix(p, h.home), func(t *testing.T) {
			out, code, v := cageRun(t, c, ws, ww, fmt.Sprintf("ls %q; echo tampered >> %q; rm -f %q; cat %q", filepath.Dir(p), p, p, p))
			if strings.Contains(out, h.secrets[p]) {
				t.Fatalf("the secret leaked: %s", out)
			}
			if code == 0 || !strings.Contains(out, p) || !strings.Contains(out, "Permission denied") {
				t.Fatalf("the failure must name the hidden path: code=%d out=%s", code, out)
			}
			if b, err := os.ReadFile(p); err != nil || string(b) != h.secrets[p] {
				t.Fatalf("the hidden file changed on the host: %q %v", b, err)
			}
			if hits := HiddenMentions(c.Hidden(), out); len(hits) == 0 {
				t.Fatalf("HiddenMentions found nothing in %q", out)
			}
			_ = v
		})
	}
	// A missing -shm next to the database cannot be planted either.
	_, _, v := cageRun(t, c, ws, ww, fmt.Sprintf("echo planted > %q", db+"-shm"))
	if exists(db+"-shm") || len(v) == 0 {
		t.Fatalf("a planted database file survived: violations %v", v)
	}
}

// unixListener listens on path and counts connections.
func unixListener(t *testing.T, path string) *atomic.Int32 {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	hits := new(atomic.Int32)
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
	return hits
}

func TestHostUnixSocketsAnywhere(t *testing.T) {
	h := newFakeHome(t)
	docker := filepath.Join(h.home, ".docker", "run", "docker.sock")
	agent := filepath.Join(testDir(t), "agent.sock")
	dHits, aHits := unixListener(t, docker), unixListener(t, agent)
	ws := gitRepo(t)
	connect := func(c *Cage, sock string) string {
		out, _, _ := cageRun(t, c, ws, ww, "socat -u OPEN:/dev/null UNIX-CONNECT:"+sock+"; python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "+sock)
		time.Sleep(100 * time.Millisecond)
		return out
	}
	tests := []struct {
		name              string
		allow             []string
		wantDocker, wantA int32
	}{
		{"no socket allowed", nil, 0, 0},
		{"one socket allowed", []string{agent}, 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dHits.Store(0)
			aHits.Store(0)
			c := newCage(t, Config{Home: h.home, AllowUnixSockets: tc.allow})
			outD, outA := connect(c, docker), connect(c, agent)
			if dHits.Load() != tc.wantDocker || aHits.Load() != tc.wantA {
				t.Fatalf("connections: docker %d (want %d), agent %d (want %d)\n%s\n%s", dHits.Load(), tc.wantDocker, aHits.Load(), tc.wantA, outD, outA)
			}
		})
	}
	// Unconfined, both connect: the listeners can see a connection.
	dHits.Store(0)
	if out, err := execOut("socat", "-u", "OPEN:/dev/null", "UNIX-CONNECT:"+docker); err != nil {
		t.Fatalf("socat cannot connect even unconfined: %v %s", err, out)
	}
	time.Sleep(100 * time.Millisecond)
	if dHits.Load() != 1 {
		t.Fatalf("unconfined connections: %d", dHits.Load())
	}
}

func execOut(name string, args ...string) (string, error) {
	b, err := exec.Command(name, args...).CombinedOutput()
	return string(b), err
}

// TestNestedHiddenPaths: Warden's folders can nest (a --db beside the
// config, its checkpoints under it, a deny_read inside a secret folder).
// Covering the outer one already hides the inner; mounting the inner one
// too would have bwrap mkdir inside the outer read-only tmpfs, and every
// caged call would fail before the command ran.
func TestNestedHiddenPaths(t *testing.T) {
	h := newFakeHome(t)
	ws := gitRepo(t)
	cfg := filepath.Join(h.home, ".config/warden")
	inner := map[string]string{
		filepath.Join(cfg, "checkpoints/objects/pack"): "",
		filepath.Join(cfg, "warden.db"):                "NESTED-DB-ROWS",
		filepath.Join(cfg, "warden.db-wal"):            "NESTED-WAL",
	}
	for p, content := range inner {
		if content == "" {
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(cfg, "warden.db")
	for _, tc := range []struct {
		name      string
		protected []string
		denyRead  []string
	}{
		{"database beside the config", []string{cfg, db, db + "-wal", db + "-shm", filepath.Join(cfg, "checkpoints")}, nil},
		{"inner listed first", []string{filepath.Join(cfg, "checkpoints/objects"), db, cfg}, nil},
		{"deny_read inside a hidden folder", []string{cfg}, []string{filepath.Join(cfg, "checkpoints")}},
		{"deny_read holding a hidden folder", []string{filepath.Join(cfg, "checkpoints")}, []string{cfg}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCage(t, Config{Home: h.home, Protected: tc.protected, DenyRead: tc.denyRead})
			out, code, _ := cageRun(t, c, ws, ww, "echo caged-call-ran")
			if code != 0 || !strings.Contains(out, "caged-call-ran") {
				t.Fatalf("a caged call fails when hidden paths nest: code=%d out=%s", code, out)
			}
			out, code, _ = cageRun(t, c, ws, ww, fmt.Sprintf("cat %q %q; ls %q", db, db+"-wal", filepath.Join(cfg, "checkpoints")))
			if code == 0 || strings.Contains(out, "NESTED-") || strings.Contains(out, "objects") {
				t.Fatalf("a nested hidden path was readable: code=%d out=%s", code, out)
			}
			for p, content := range inner {
				if content == "" {
					continue
				}
				if b, err := os.ReadFile(p); err != nil || string(b) != content {
					t.Fatalf("%s changed on the host: %q %v", p, b, err)
				}
			}
		})
	}
}
