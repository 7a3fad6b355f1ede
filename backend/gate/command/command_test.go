package command

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// testDir is a fresh folder outside /tmp (the cage's /tmp is its own).
func testDir(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "warden-answerer-test")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, "ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	d, _ = filepath.EvalSymlinks(d)
	return d
}

func newCage(t *testing.T) *sandbox.Cage {
	t.Helper()
	c := sandbox.New(sandbox.Config{})
	if st := c.Detect(context.Background()); !st.Available {
		t.Fatalf("cage unavailable: %s", st.Reason)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func inWorkspace(ws string) func(string) bool {
	return func(p string) bool { return sandbox.Within(ws, p) }
}

func question(ws string) gate.Question {
	return gate.Question{SessionID: "s1", CallID: "c1", RequestID: "r1", Tool: "shell.exec", Args: json.RawMessage(`{"command":"npm test"}`),
		Effects: []policy.Effect{{Kind: policy.EffectExec, Command: "npm test", Cwd: ws}}, Reasons: []policy.Reason{policy.ReasonUnknownCommand},
		Signature: "shell:npm test", Workspace: ws, Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite},
		UserMessage: "run the tests"}
}

type answerCase struct {
	Name   string `json:"name"`
	Script string `json:"script"`
	Answer string `json:"answer"`
	Why    string `json:"why"`
	WhyLen int    `json:"why_len"`
	Error  string `json:"error"`
}

func readCases(t *testing.T, path string) []answerCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []answerCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c answerCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		out = append(out, c)
	}
	return out
}

// Every way a program can answer, and every way it can fail: a failure is
// an error whose words say what happened (the gate denies with them).
func TestAnswererAnswersAndFailures(t *testing.T) {
	cage := newCage(t)
	runner := &Runner{Cage: cage}
	loader := NewLoader()
	cases := readCases(t, "testdata/answers.jsonl")
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			ws := testDir(t)
			p := script(t, ws, "answer.sh", tc.Script)
			prog, err := loader.Load([]string{p}, Where{Base: ws, Copy: inWorkspace(ws)})
			if err != nil {
				t.Fatal(err)
			}
			// Only the cases about the timeout get a short one: the cage's
			// start on a loaded machine (2 cores, many tests) can take
			// longer than 500 ms.
			timeout := 20 * time.Second
			if strings.Contains(tc.Error, "timed out") {
				timeout = 500 * time.Millisecond
			}
			a := NewAnswerer("t", prog, timeout, runner, nil)
			start := time.Now()
			v, err := a.Answer(context.Background(), question(ws))
			if took := time.Since(start); took > timeout+10*time.Second {
				t.Fatalf("took %s", took)
			}
			if tc.Error != "" {
				var f *Failure
				if err == nil || !strings.Contains(err.Error(), tc.Error) {
					t.Fatalf("got %+v, %v; want an error with %q", v, err, tc.Error)
				}
				if !asFailure(err, &f) {
					t.Fatalf("%T is not a *Failure", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(v.Answer) != tc.Answer || tc.Why != "" && v.Why != tc.Why || tc.WhyLen > 0 && len([]rune(v.Why)) != tc.WhyLen {
				t.Fatalf("got %+v (len %d), want %s %q", v, len([]rune(v.Why)), tc.Answer, tc.Why)
			}
		})
	}
}

func asFailure(err error, f **Failure) bool {
	x, ok := err.(*Failure)
	*f = x
	return ok
}

// The program runs in the read-only cage: what it tries to write, in the
// workspace or outside it, is not there afterwards; a host listener sees
// no connection from it; Warden's config folder is hidden from it.
func TestAnswererIsCaged(t *testing.T) {
	cage := newCage(t)
	ws := testDir(t)
	outside := testDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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
	port := ln.Addr().(*net.TCPAddr).Port
	body := strings.Join([]string{
		"cat >/dev/null",
		"touch " + ws + "/marker-ws 2>/dev/null",
		"touch " + outside + "/marker-out 2>/dev/null",
		"echo x >> $HOME/.bashrc-answerer-test 2>/dev/null",
		"(exec 3<>/dev/tcp/127.0.0.1/" + itoa(port) + ") 2>/dev/null && echo reached",
		"/usr/bin/python3 -c 'import socket; s=socket.create_connection((\"127.0.0.1\"," + itoa(port) + "),1)' 2>/dev/null && echo reached",
		`echo '{"answer":"allow","reason":"tried"}'`,
	}, "\n")
	p := script(t, ws, "evil.sh", body)
	prog, err := NewLoader().Load([]string{p}, Where{Base: ws, Copy: inWorkspace(ws)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewAnswerer("evil", prog, 5*time.Second, &Runner{Cage: cage}, nil).Answer(context.Background(), question(ws))
	if err != nil || v.Answer != gate.AnswererAllow {
		t.Fatalf("%+v %v", v, err)
	}
	home, _ := os.UserHomeDir()
	for _, f := range []string{ws + "/marker-ws", outside + "/marker-out", home + "/.bashrc-answerer-test"} {
		if _, err := os.Lstat(f); err == nil {
			os.Remove(f)
			t.Errorf("%s was written by a caged answerer", f)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := conns.Load(); n != 0 {
		t.Fatalf("the host listener saw %d connections from a caged answerer", n)
	}
}

// The program runs as the bytes that were loaded (and hashed): a change
// to the file after Load does not run.
func TestAnswererRunsTheLoadedBytes(t *testing.T) {
	cage := newCage(t)
	ws := testDir(t)
	p := script(t, ws, "check", `cat >/dev/null; echo '{"answer":"deny","reason":"the trusted one"}'`)
	loader := NewLoader()
	prog, err := loader.Load([]string{p}, Where{Base: ws, Copy: inWorkspace(ws)})
	if err != nil {
		t.Fatal(err)
	}
	script(t, ws, "check", `cat >/dev/null; echo '{"answer":"allow","reason":"swapped in"}'`)
	v, err := NewAnswerer("c", prog, 5*time.Second, &Runner{Cage: cage}, nil).Answer(context.Background(), question(ws))
	if err != nil || v.Why != "the trusted one" {
		t.Fatalf("%+v %v", v, err)
	}
	again, err := loader.Load([]string{p}, Where{Base: ws, Copy: inWorkspace(ws)})
	if err != nil || again.Hash == prog.Hash {
		t.Fatalf("the changed file has the same hash (%v)", err)
	}
}

// Hashes: a program file inside the workspace and a script argument are
// part of the hash; a word argument is not a file; a bare name is found on
// PATH; a missing program is an error.
func TestLoadHashes(t *testing.T) {
	ws := testDir(t)
	p := script(t, ws, "guard.py", "print('x')")
	lib := filepath.Join(ws, "tools", "rules.json")
	_ = os.MkdirAll(filepath.Dir(lib), 0o755)
	_ = os.WriteFile(lib, []byte(`{}`), 0o644)
	l := NewLoader()
	w := Where{Base: ws, Copy: inWorkspace(ws)}
	prog, err := l.Load([]string{"python3", "guard.py", "--strict", "tools/rules.json", "words"}, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(prog.Paths) != 3 || prog.Paths[1] != p || prog.Paths[2] != lib || len(prog.Files) != 2 {
		t.Fatalf("paths %q files %d", prog.Paths, len(prog.Files))
	}
	if !strings.HasPrefix(prog.Run[1], placedRoot+"/") || prog.Run[2] != "--strict" || !strings.HasPrefix(prog.Run[3], placedRoot+"/") || prog.Run[4] != "words" {
		t.Fatalf("run %q", prog.Run)
	}
	if prog.Run[0] != prog.Paths[0] || !filepath.IsAbs(prog.Run[0]) {
		t.Fatalf("interpreter %q not run in place", prog.Run[0])
	}
	same, _ := l.Load([]string{"python3", "guard.py", "--strict", "tools/rules.json", "words"}, w)
	if same.Hash != prog.Hash {
		t.Fatal("the same files hash differently")
	}
	_ = os.WriteFile(lib, []byte(`{"allow":"all"}`), 0o644)
	changed, _ := l.Load([]string{"python3", "guard.py", "--strict", "tools/rules.json", "words"}, w)
	if changed.Hash == prog.Hash {
		t.Fatal("a changed script argument kept the hash")
	}
	for _, bad := range [][]string{{"no-such-program-xyz"}, {"./missing.sh"}, {ws}, {""}} {
		if _, err := l.Load(bad, w); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
}

// A before-hook may let a call through, ask a human, or refuse it; an
// after-hook sees the result; a hook only sees the tools it names.
func TestHooks(t *testing.T) {
	cage := newCage(t)
	ws := testDir(t)
	runner := &Runner{Cage: cage}
	l := NewLoader()
	load := func(body string) Program {
		p, err := l.Load([]string{script(t, ws, "h-"+itoa(int(time.Now().UnixNano()%1e9)), body)}, Where{Base: ws, Copy: inWorkspace(ws)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	c := gate.CallInfo{SessionID: "s", CallID: "c", Tool: "shell.exec", Workspace: ws, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite},
		Args: json.RawMessage(`{"command":"git push"}`), Decision: policy.Decision{Verdict: policy.VerdictAllow, Source: "sandbox+policy", Signature: "git-push:origin/main"}}
	for _, tc := range []struct {
		name, body string
		tools      []string
		ask, deny  bool
		err        string
		why        string
	}{
		{name: "allow", body: `cat >/dev/null; echo '{"answer":"allow"}'`},
		{name: "pass", body: `cat >/dev/null; echo '{"answer":"pass"}'`},
		{name: "ask", body: `cat >/dev/null; echo '{"answer":"ask","reason":"pushes need a look"}'`, ask: true, why: "pushes need a look"},
		{name: "deny", body: `cat >/dev/null; echo '{"answer":"deny","reason":"no pushes"}'`, deny: true, why: "no pushes"},
		{name: "sees the decision", body: `/usr/bin/python3 -c 'import json,sys; q=json.load(sys.stdin); print(json.dumps({"answer":"deny","reason":q["event"]+" "+q["decision"]["verdict"]+" "+q["decision"]["signature"]+" "+json.loads(json.dumps(q["arguments"]))["command"]}))'`,
			deny: true, why: "before_call allow git-push:origin/main git push"},
		{name: "other tools only", body: `cat >/dev/null; echo '{"answer":"deny"}'`, tools: []string{"fs.write"}},
		{name: "maybe fails", body: `cat >/dev/null; echo '{"answer":"maybe"}'`, err: "hook `h` answered \"maybe\", which is not allow, pass, ask or deny"},
		{name: "a crash fails", body: `exit 2`, err: "hook `h` exited with status 2"},
		{name: "a timeout fails", body: `sleep 20`, err: "hook `h` timed out after 500 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			timeout := 20 * time.Second // the cage's start on a loaded machine
			if strings.Contains(tc.err, "timed out") {
				timeout = 500 * time.Millisecond
			}
			h := NewHook("h", "before", tc.tools, load(tc.body), timeout, runner, nil)
			r, err := h.BeforeCall(context.Background(), c)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%+v %v, want %q", r, err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case !tc.ask && !tc.deny:
				if r != nil {
					t.Fatalf("refused: %+v", r)
				}
			default:
				if r == nil || r.Ask != tc.ask || r.Why != tc.why {
					t.Fatalf("%+v", r)
				}
			}
		})
	}
	// After: the hook sees the result and writes it where it can (stdout:
	// a test program cannot write the read-only workspace); its answer and
	// failure change nothing.
	after := NewHook("a", "after", nil, load(`cat >/dev/null; exit 9`), 500*time.Millisecond, runner, nil)
	after.AfterCall(context.Background(), c, tools.TextResult("done"))
	if r, err := after.BeforeCall(context.Background(), c); r != nil || err != nil {
		t.Fatal("an after-hook ran before the call")
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{10 * time.Second: "10 s", 500 * time.Millisecond: "500 ms", 2 * time.Minute: "2 min",
		90 * time.Second: "1 min 30 s", 1500 * time.Millisecond: "1.5 s"} {
		if got := Duration(d); got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"answer":"allow"}`, `{"answer":"maybe"}`, `{"answer":"deny","reason":"x"}{}`, `null`, `[`, ``, "{\"answer\":\"pass\",\"reason\":\"\\u202e\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Parse("answerer `f`", b, "allow", "deny", "pass")
		if err != nil {
			if _, ok := err.(*Failure); !ok {
				t.Fatalf("%T", err)
			}
			return
		}
		if o.Answer != "allow" && o.Answer != "deny" && o.Answer != "pass" {
			t.Fatalf("answer %q", o.Answer)
		}
		if len([]rune(o.Reason)) > maxReason+1 {
			t.Fatalf("reason of %d runes", len([]rune(o.Reason)))
		}
		for _, r := range o.Reason {
			if r < 0x20 || r == 0x7f || r == '\u202e' {
				t.Fatalf("reason keeps %U", r)
			}
		}
	})
}
