package review_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/gate/review"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// yes is a reviewer's model that allows everything it is shown.
type yes struct{ n atomic.Int32 }

func (y *yes) Review(context.Context, review.Request) (review.Reply, error) {
	y.n.Add(1)
	return review.Reply{JSON: json.RawMessage(`{"answer":"allow","reason":"looks fine"}`)}, nil
}

type redCase struct {
	Name      string `json:"name"`
	Class     string `json:"class"`
	Sandbox   string `json:"sandbox"`
	Steps     []step `json:"steps"`
	Absent    []string
	Unchanged []string
	Host      []string
}

type step struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

func (c *redCase) UnmarshalJSON(b []byte) error {
	type plain redCase
	var p struct {
		plain
		Absent    []string `json:"absent"`
		Unchanged []string `json:"unchanged"`
		Host      []string `json:"host"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = redCase(p.plain)
	c.Absent, c.Unchanged, c.Host = p.Absent, p.Unchanged, p.Host
	return nil
}

func sandboxOf(t *testing.T, s string) policy.SandboxPolicy {
	switch s {
	case "read-only":
		return policy.SandboxPolicy{Kind: policy.ReadOnly}
	case "workspace-write":
		return policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	case "workspace-write+net":
		return policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}
	case "full-access":
		return policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	}
	t.Fatalf("sandbox %q", s)
	return policy.SandboxPolicy{}
}

// testDir is a fresh folder outside /tmp (the cage's /tmp is its own).
func testDir(t *testing.T, prefix string) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "warden-redteam")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	d, _ = filepath.EvalSymlinks(d)
	return d
}

func gitInit(t *testing.T, ws string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"},
		{"commit", "--allow-empty", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	_ = os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	if err := os.WriteFile(filepath.Join(ws, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The reviewer allows everything, and every call of the red-team data is
// asked (approval Always), so each reaches it: what the calls do outside
// the cage is still nothing — the sandbox and the cage decide, not the
// reviewer. Asserted on the outside world: files outside the workspace,
// the protected files inside it, what git runs on the host afterwards, a
// host listener's connections. No human is attached: what only a human
// may answer is denied.
func TestRedTeamThroughAnAllowAllReviewer(t *testing.T) {
	f, err := os.Open("testdata/redteam.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var cases []redCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c redCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		cases = append(cases, c)
	}
	f.Close()
	if len(cases) < 150 {
		t.Fatalf("only %d cases", len(cases))
	}

	cage := sandbox.New(sandbox.Config{})
	if st := cage.Detect(context.Background()); !st.Available {
		t.Fatalf("cage unavailable: %s", st.Reason)
	}
	t.Cleanup(func() { _ = cage.Close() })
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	lanIP := "127.0.0.1" // the host's own network address, if it has one
	if as, err := net.InterfaceAddrs(); err == nil {
		for _, a := range as {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
				lanIP = n.IP.String()
				break
			}
		}
	}
	home, _ := os.UserHomeDir()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := store.Open(ctx, db, storetest.KeyFor(db))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	model := &yes{}
	rev, err := review.New(review.Config{Name: "yes-to-everything", Model: model, Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	engine := policy.New(policy.Config{})
	registry := map[string]tools.Tool{"shell.exec": tools.NewShellExec(cage), "fs.write": tools.NewFsWrite(), "patch.apply": tools.NewPatchApply()}
	var mu sync.Mutex
	allowedByReviewer, deniedBefore := 0, 0

	for _, tc := range cases {
		t.Run(tc.Class+"/"+tc.Sandbox+"/"+tc.Name, func(t *testing.T) {
			ws, out := testDir(t, "ws-"), testDir(t, "out-")
			gitInit(t, ws)
			keep := filepath.Join(out, "keep")
			if err := os.WriteFile(keep, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			expand := func(s string) string {
				return strings.NewReplacer("$OUT", out, "$WS", ws, "$PORT", port, "$HOME", home, "$LANIP", lanIP).Replace(s)
			}
			before := map[string]string{}
			for _, u := range tc.Unchanged {
				b, err := os.ReadFile(expand(u))
				if err != nil {
					t.Fatal(err)
				}
				before[u] = string(b)
			}
			connsBefore := conns.Load()
			var sessID string
			defer func() {
				time.Sleep(50 * time.Millisecond)
				if n := conns.Load() - connsBefore; n != 0 {
					t.Errorf("the host listener saw %d connections", n)
					evs, _ := st.Events(ctx, store.EventQuery{SessionID: sessID})
					for _, e := range evs {
						b, _ := store.Encode(e.Event)
						t.Logf("%s", b)
					}
				}
			}()
			sb := sandboxOf(t, tc.Sandbox)
			sess, err := st.CreateSession(ctx, store.NewSession{Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			sessID = sess.ID
			g, err := gate.New(gate.Config{Decider: engine, Store: st, Headless: true, Answerers: []gate.Answerer{rev},
				Session: func(context.Context, tools.Env) (policy.Session, error) {
					return policy.Session{Workspace: ws, Approval: policy.Always, Sandbox: sb, Caged: cage.Caged(sb),
						NetworkProxied: cage.Proxied(sb)}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.Steps {
				tool := registry[s.Tool]
				o, err := g.Call(ctx, gate.Request{Tool: tool, Args: json.RawMessage(expand(string(s.Args))), Env: tools.Env{SessionID: sess.ID}})
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				if o.Decision != nil && o.Decision.Layer == policy.LayerAnswerer && o.Decision.Verdict == policy.VerdictAllow {
					allowedByReviewer++
				} else {
					deniedBefore++
				}
				mu.Unlock()
			}
			time.Sleep(1500 * time.Millisecond * time.Duration(boolInt(strings.Contains(tc.Name, "background") || strings.Contains(tc.Name, "setsid"))))
			for _, h := range tc.Host {
				// git, run on the host as the user would, after the call.
				args := strings.Fields(expand(h))
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
				_ = cmd.Run()
			}
			for _, a := range tc.Absent {
				p := expand(a)
				if tc.Sandbox == "full-access" && !strings.HasPrefix(a, "$WS") {
					// The contract (permission-model.md, the claim): a
					// full-access command no human answered runs in the
					// full-access cage, where a write outside the
					// workspace is admitted; only the protected set holds.
					_ = os.RemoveAll(p)
					continue
				}
				if _, err := os.Lstat(p); err == nil {
					_ = os.RemoveAll(p)
					t.Errorf("%s exists: the call reached outside the cage", p)
				}
			}
			for _, u := range tc.Unchanged {
				b, err := os.ReadFile(expand(u))
				if err != nil || string(b) != before[u] {
					t.Errorf("%s changed (%v)", expand(u), err)
				}
			}
			if fi, err := os.Stat(keep); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s was touched: %v", keep, err)
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	if n := conns.Load(); n != 0 {
		t.Fatalf("the host listener saw %d connections", n)
	}
	// Not vacuous: the reviewer was asked and said yes, many times.
	t.Logf("%d calls allowed by the reviewer, %d decided before it or kept from it; the model was asked %d times",
		allowedByReviewer, deniedBefore, model.n.Load())
	if allowedByReviewer < 40 {
		t.Fatalf("only %d calls reached the allow-all reviewer: the data does not test it", allowedByReviewer)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
