//go:build !wardenslim

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// The slim build (slim.go, tag wardenslim) is what `make cli` installs as
// bin/warden: these tests build it and the full binary as make cli does
// and run them as processes, since the point is which binary runs what.

var cliBuild struct {
	once             sync.Once
	dir              string // removed by TestMain once the tests are over
	slim, alone, err string
}

// slimCLI returns bin/warden's slim build with warden-full beside it
// (paired) and a copy of the slim build with nothing beside it (alone).
func slimCLI(t *testing.T) (paired, alone string) {
	t.Helper()
	cliBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "warden-slim-cli-")
		if err != nil {
			cliBuild.err = err.Error()
			return
		}
		cliBuild.dir = dir // two binaries, ≈ 180 MB: every run left one behind
		build := func(out string, tags ...string) error {
			args := append(append([]string{"build"}, tags...), "-ldflags", "-X main.version=0.1.0-test", "-o", out, ".")
			cmd := exec.Command("go", args...)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=1") // as `make cli` builds it (the store is the C SQLite)
			if b, err := cmd.CombinedOutput(); err != nil {
				return errors.New("go " + strings.Join(args, " ") + ": " + err.Error() + "\n" + string(b))
			}
			return nil
		}
		pair, solo := filepath.Join(dir, "bin"), filepath.Join(dir, "alone")
		for _, d := range []string{pair, solo} {
			if err := os.Mkdir(d, 0o755); err != nil {
				cliBuild.err = err.Error()
				return
			}
		}
		if err := build(filepath.Join(pair, "warden"), "-tags", "wardenslim"); err != nil {
			cliBuild.err = err.Error()
			return
		}
		if err := build(filepath.Join(pair, fullNameForTest)); err != nil {
			cliBuild.err = err.Error()
			return
		}
		b, err := os.ReadFile(filepath.Join(pair, "warden"))
		if err == nil {
			err = os.WriteFile(filepath.Join(solo, "warden"), b, 0o755)
		}
		if err != nil {
			cliBuild.err = err.Error()
			return
		}
		cliBuild.slim, cliBuild.alone = filepath.Join(pair, "warden"), filepath.Join(solo, "warden")
	})
	if cliBuild.err != "" {
		t.Fatal(cliBuild.err)
	}
	return cliBuild.slim, cliBuild.alone
}

// fullNameForTest is slim.go's fullName (slim.go is not in this build).
const fullNameForTest = "warden-full"

type procRun struct {
	code           int
	stdout, stderr string
}

func runProc(t *testing.T, dir, bin string, args ...string) procRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, strings.NewReader("")
	err := cmd.Run()
	r := procRun{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return r
}

// slimEnv gives the processes a home of their own: config, data, cache.
func slimEnv(t *testing.T) (configDir string) {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("WARDEN_DB", "")
	return filepath.Join(cfg, "warden")
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSlimToolIsTheSameCall: the slim binary runs `warden tool` itself
// (with no full binary anywhere) through the same gate, cage, checkpoint and
// store as the full build's command in process: the same decision, the
// same events, the same effect on the workspace.
func TestSlimToolIsTheSameCall(t *testing.T) {
	_, alone := slimCLI(t)
	for _, tc := range []struct {
		name, tool, args string
		sandbox          string
		code             int
		made             string // a file the call makes in the workspace
	}{
		{"a caged command writes the workspace", "shell.exec", `{"command":"echo hi > made.txt"}`, "workspace-write", 0, "made.txt"},
		{"a caged command that fails", "shell.exec", `{"command":"exit 3"}`, "workspace-write", 1, ""},
		{"a read-only cage refuses the write", "shell.exec", `{"command":"echo hi > ro.txt"}`, "read-only", 1, ""},
		{"a file tool", "fs.write", `{"path":"notes.md","content":"x\n"}`, "workspace-write", 0, "notes.md"},
		{"a read-only file tool", "fs.list", `{"path":"."}`, "read-only", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slimEnv(t)
			var got [2]toolRun
			var events [2]string
			var wss [2]string
			for i, via := range []string{"slim process", "in process"} {
				ws, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				wss[i] = ws
				db := filepath.Join(t.TempDir(), "w.db")
				argv := []string{tc.tool, "--workspace", ws, "--db", db, "--sandbox", tc.sandbox, "--args", tc.args}
				if i == 0 {
					p := runProc(t, ws, alone, append([]string{"tool"}, argv...)...)
					got[i] = toolRun{code: p.code, stderr: p.stderr}
					if p.stdout != "" {
						if err := json.Unmarshal([]byte(p.stdout), &got[i].out); err != nil {
							t.Fatalf("slim output: %v\n%s", err, p.stdout)
						}
					}
				} else {
					got[i] = runToolCLI(t, argv...)
				}
				if got[i].code != tc.code {
					t.Fatalf("%s: exit %d, want %d; stderr: %s", via, got[i].code, tc.code, got[i].stderr)
				}
				if tc.made != "" && !toolExists(filepath.Join(ws, tc.made)) {
					t.Errorf("%s: %s was not made in the workspace", via, tc.made)
				}
				if got[i].out.SessionID != "" {
					events[i] = toolEventKinds(t, db, got[i].out.SessionID)
				}
			}
			if strings.Contains(got[0].stderr, fullNameForTest) {
				t.Errorf("the slim build asked for the full binary: %s", got[0].stderr)
			}
			if events[0] != events[1] {
				t.Errorf("events differ:\n slim:       %s\n in process: %s", events[0], events[1])
			}
			// Each run has its own workspace folder; the decisions name it.
			d0, _ := json.Marshal(got[0].out.Decision)
			d1, _ := json.Marshal(got[1].out.Decision)
			d0, d1 = bytes.ReplaceAll(d0, []byte(wss[0]), []byte("WS")), bytes.ReplaceAll(d1, []byte(wss[1]), []byte("WS"))
			if !bytes.Equal(d0, d1) {
				t.Errorf("decisions differ:\n slim:       %s\n in process: %s", d0, d1)
			}
			if got[0].out.Result.IsError != got[1].out.Result.IsError {
				t.Errorf("results differ: slim error=%v, in process error=%v", got[0].out.Result.IsError, got[1].out.Result.IsError)
			}
		})
	}
}

// TestSlimHandsOverTheRest: every command but `tool` and `version` runs in
// the full binary (the same output as running it directly); without the
// full binary the slim one says where it looked and opens nothing.
func TestSlimHandsOverTheRest(t *testing.T) {
	paired, alone := slimCLI(t)
	full := filepath.Join(filepath.Dir(paired), fullNameForTest)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no command", nil},
		{"help", []string{"--help"}},
		{"a policy check (no calls on stdin)", []string{"policy", "check", "--format", "text"}},
		{"the audit", []string{"audit", "verify"}},
		{"an unknown command", []string{"frobnicate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slimEnv(t)
			dir := t.TempDir()
			t.Setenv("WARDEN_DB", filepath.Join(dir, "w.db"))
			want := runProc(t, dir, full, tc.args...)
			got := runProc(t, dir, paired, tc.args...)
			if got != want {
				t.Errorf("through the slim binary:\n%+v\nthe full binary directly:\n%+v", got, want)
			}
			_ = os.Remove(filepath.Join(dir, "w.db"))
			lone := runProc(t, dir, alone, tc.args...)
			if lone.code != 1 || !strings.Contains(lone.stderr, fullNameForTest) {
				t.Errorf("without the full binary: exit %d, stderr %q; want 1 and a message naming %s", lone.code, lone.stderr, fullNameForTest)
			}
			if toolExists(filepath.Join(dir, "w.db")) {
				t.Error("without the full binary the slim one still opened the database")
			}
		})
	}
	t.Run("version is its own", func(t *testing.T) {
		for _, arg := range []string{"version", "--version", "-v"} {
			if r := runProc(t, t.TempDir(), alone, arg); r.code != 0 || r.stdout != "warden 0.1.0-test\n" {
				t.Errorf("%s: %+v", arg, r)
			}
		}
	})
}

// TestSlimHandsOverWhatItLacks: a configuration that needs a part the
// slim build does not link (the OpenTelemetry export, a reviewer model)
// makes it hand the whole call to the full binary before it opens anything:
// alone, it opens no database; paired, the full binary's graph runs the
// call (with the export on, the call's events are in the outbox, which
// only the full build's store fills).
func TestSlimHandsOverWhatItLacks(t *testing.T) {
	paired, alone := slimCLI(t)
	const userModel = "[[answerers]]\nkind = \"model\"\nname = \"rev\"\nmodel = \"anthropic:claude-haiku-4-5\"\n"
	for _, tc := range []struct {
		name      string
		user      string // the user's config.toml
		workspace string // the workspace's .warden/config.toml
		handsOver bool   // the slim binary must hand the call over
		outbox    bool   // the full binary's export queued the call
	}{
		{"the OpenTelemetry export is on", "[telemetry]\nendpoint = \"http://127.0.0.1:9\"\nmetrics = false\n", "", true, true},
		{"the export is on with its table written in another order", "[telemetry]\nmetrics = false\nendpoint = \"http://127.0.0.1:9\"\nenabled = true\n", "", true, true},
		{"a reviewer model answers asks", userModel, "", true, false},
		{"a reviewer model among other answerers", "[[answerers]]\nkind = \"command\"\nname = \"cmd\"\ncommand = [\"/bin/true\"]\n" + userModel, "", true, false},
		// Controls: what the slim build links itself.
		{"a command answerer only", "[[answerers]]\nkind = \"command\"\nname = \"cmd\"\ncommand = [\"/bin/true\"]\n", "", false, false},
		{"the export off", "[telemetry]\nenabled = false\nendpoint = \"http://127.0.0.1:9\"\n", "", false, false},
		// A workspace file's reviewer model is ignored by every build
		// (config: it would choose where the user's actions are sent).
		{"the workspace's own reviewer model", "", "[[answerers]]\nkind = \"model\"\nname = \"wsrev\"\nmodel = \"openai:gpt-4.1-mini\"\n", false, false},
		// Refused by the config's own check, the same in both builds.
		{"an unreadable workspace config", "", "[[answerers]\nkind = ", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgDir := slimEnv(t)
			if tc.user != "" {
				writeFile(t, filepath.Join(cfgDir, "config.toml"), tc.user)
			}
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if tc.workspace != "" {
				writeFile(t, filepath.Join(ws, ".warden", "config.toml"), tc.workspace)
			}
			db := filepath.Join(t.TempDir(), "w.db")
			args := []string{"tool", "shell.exec", "--workspace", ws, "--db", db, "--sandbox", "workspace-write", "--args", `{"command":"echo hi > made.txt"}`}

			lone := runProc(t, ws, alone, args...)
			loneOpened := toolExists(db)
			want := runProc(t, ws, filepath.Join(filepath.Dir(paired), fullNameForTest), args...)
			if !tc.handsOver {
				if lone.code != want.code || strings.Contains(lone.stderr, fullNameForTest) {
					t.Fatalf("alone: exit %d, stderr %q; the full binary: exit %d, stderr %q", lone.code, lone.stderr, want.code, want.stderr)
				}
				return
			}
			if lone.code != 1 || !strings.Contains(lone.stderr, fullNameForTest) {
				t.Fatalf("alone: exit %d, stderr %q; want 1 and a message naming %s", lone.code, lone.stderr, fullNameForTest)
			}
			if loneOpened {
				t.Fatal("alone, the slim binary opened the database before handing over")
			}
			_ = os.Remove(filepath.Join(ws, "made.txt"))
			db2 := filepath.Join(t.TempDir(), "w.db")
			args[5] = db2
			got := runProc(t, ws, paired, args...)
			if got.code != want.code {
				t.Fatalf("paired: exit %d (stderr %s); the full binary directly: exit %d (stderr %s)", got.code, got.stderr, want.code, want.stderr)
			}
			if got.code == 0 && !toolExists(filepath.Join(ws, "made.txt")) {
				t.Error("paired: the call did not run")
			}
			if tc.outbox {
				st, err := openStore(context.Background(), db2, store.MustExist())
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				stats, err := st.OutboxStats(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if stats.Queued+stats.Sent == 0 {
					t.Errorf("the call's events are not in the outbox (%+v): the slim graph ran it, without the export", stats)
				}
			}
		})
	}
}

// TestSlimHandsOverTools: a call of a tool the slim build does not link
// (the browser tools, computer.use, MCP tools by either name), or under a
// configuration with an MCP server (which the full build starts), is run by
// the full binary from the start: alone, the slim binary says so and opens
// nothing — no database, no server started; paired, the output, exit code
// and recorded events are the full binary's own. A built-in tool is the
// control the slim binary runs itself. A name no build knows is handed
// over too, after the graph found it missing (the full binary lists its
// own tools): it opened the store as the full binary would, and ran
// nothing.
func TestSlimHandsOverTools(t *testing.T) {
	paired, alone := slimCLI(t)
	full := filepath.Join(filepath.Dir(paired), fullNameForTest)
	for _, tc := range []struct {
		name, tool, args string
		user             string // the user's config.toml; %s is the marker file a started server writes
		mcpJSON          string // the workspace's .mcp.json; %s as above
		handsOver        bool
		opensFirst       bool // the slim binary opens the store before it knows (an unknown name)
		started          bool // the full binary starts the configured server
	}{
		{name: "a built-in tool", tool: "fs.write", args: `{"path":"a.txt","content":"x"}`},
		{name: "a built-in command", tool: "shell.exec", args: `{"command":"echo hi > made.txt"}`},
		{name: "a browser tool", tool: "browser.action", args: `{}`, handsOver: true},
		{name: "a browser batch", tool: "browser.batch", args: `{"steps":[]}`, handsOver: true},
		{name: "computer use", tool: "computer.use", args: `{"action":"screenshot"}`, handsOver: true},
		{name: "an MCP tool by its gate name", tool: "mcp-tool:files/read", args: `{}`, handsOver: true},
		{name: "an MCP tool by its model name", tool: "mcp__files__read", args: `{}`, handsOver: true},
		{name: "a name no build knows", tool: "no.such.tool", args: `{}`, handsOver: true, opensFirst: true},
		{name: "a user MCP server configured", tool: "shell.exec", args: `{"command":"true"}`, handsOver: true, started: true,
			user: "[mcp.servers.rec]\ncommand = \"%s\"\nsandbox = \"none\"\n"},
		{name: "a workspace MCP server configured", tool: "fs.list", args: `{"path":"."}`, handsOver: true,
			mcpJSON: `{"mcpServers":{"rec":{"command":"%s"}}}`},
		{name: "an MCP tool with its server configured", tool: "mcp-tool:rec/echo", args: `{}`, handsOver: true, started: true,
			user: "[mcp.servers.rec]\ncommand = \"%s\"\nsandbox = \"none\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgDir := slimEnv(t)
			// A "server" that only records that it was started, outside
			// any cage, and exits (the full build then reports it failed).
			tmp := t.TempDir()
			marker, srv := filepath.Join(tmp, "started"), filepath.Join(tmp, "srv.sh")
			writeFile(t, srv, "#!/bin/sh\necho started >> "+marker+"\n")
			if err := os.Chmod(srv, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.user != "" {
				writeFile(t, filepath.Join(cfgDir, "config.toml"), strings.ReplaceAll(tc.user, "%s", srv))
			}
			run := func(bin string) (procRun, string, string) {
				ws, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				if tc.mcpJSON != "" {
					writeFile(t, filepath.Join(ws, ".mcp.json"), strings.ReplaceAll(tc.mcpJSON, "%s", srv))
				}
				db := filepath.Join(t.TempDir(), "w.db")
				r := runProc(t, ws, bin, "tool", tc.tool, "--workspace", ws, "--db", db, "--sandbox", "workspace-write", "--args", tc.args)
				return r, ws, db
			}

			lone, _, loneDB := run(alone)
			loneStarted := toolExists(marker)
			_ = os.Remove(marker)
			if !tc.handsOver {
				if lone.code != 0 || strings.Contains(lone.stderr, fullNameForTest) {
					t.Fatalf("alone: exit %d, stderr %q: the slim binary should run a built-in tool itself", lone.code, lone.stderr)
				}
				return
			}
			if lone.code != 1 || !strings.Contains(lone.stderr, fullNameForTest) {
				t.Fatalf("alone: exit %d, stdout %q, stderr %q; want 1 and a message naming %s", lone.code, lone.stdout, lone.stderr, fullNameForTest)
			}
			if lone.stdout != "" {
				t.Errorf("alone: the slim binary printed an outcome: %s", lone.stdout)
			}
			if toolExists(loneDB) != tc.opensFirst {
				t.Errorf("alone: database made = %v, want %v", toolExists(loneDB), tc.opensFirst)
			}
			if loneStarted {
				t.Error("alone: the slim binary started the configured MCP server")
			}

			want, wsW, dbW := run(full)
			wantStarted := toolExists(marker)
			_ = os.Remove(marker)
			got, wsG, dbG := run(paired)
			gotStarted := toolExists(marker)
			if wantStarted != tc.started || gotStarted != tc.started {
				t.Errorf("server started: full binary %v, through the slim one %v; want %v", wantStarted, gotStarted, tc.started)
			}
			if got.code != want.code || got.stderr != want.stderr {
				t.Fatalf("through the slim binary: exit %d, stderr %q\nthe full binary: exit %d, stderr %q", got.code, got.stderr, want.code, want.stderr)
			}
			var o [2]toolOutput
			for i, r := range []procRun{want, got} {
				if r.stdout == "" {
					continue
				}
				if err := json.Unmarshal([]byte(r.stdout), &o[i]); err != nil {
					t.Fatalf("output: %v\n%s", err, r.stdout)
				}
			}
			// Each run has its own workspace folder and its own timing.
			timing := regexp.MustCompile(`\(\d+ ms\)|"duration_ms":\d+`)
			norm := func(v any, ws string) string {
				b, _ := json.Marshal(v)
				return timing.ReplaceAllString(strings.ReplaceAll(string(b), ws, "WS"), "T")
			}
			if a, b := norm([]any{o[0].Decision, o[0].Result}, wsW), norm([]any{o[1].Decision, o[1].Result}, wsG); a != b {
				t.Errorf("outcomes differ:\n full: %s\n slim: %s", a, b)
			}
			if (o[0].SessionID == "") != (o[1].SessionID == "") {
				t.Fatalf("one run made a session, the other not: %q, %q", o[0].SessionID, o[1].SessionID)
			}
			if o[0].SessionID != "" {
				if a, b := toolEventKinds(t, dbW, o[0].SessionID), toolEventKinds(t, dbG, o[1].SessionID); a != b {
					t.Errorf("events differ:\n full: %s\n slim: %s", a, b)
				}
			}
		})
	}
}

// TestSlimNetworkedCall: a caged command with network runs through the
// slim binary alone. The cage re-executes the running binary as its network
// forwarder (netfwd); with no full binary anywhere, the page arrives only if
// the slim build runs the forwarder itself (handover.Own keeps it, and
// TestOwn checks that it is never handed over when a full binary exists).
func TestSlimNetworkedCall(t *testing.T) {
	_, alone := slimCLI(t)
	slimEnv(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "page through the proxy")
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.db")
	r := runProc(t, ws, alone, "tool", "shell.exec", "--workspace", ws, "--db", db, "--approval", "never", "--network",
		"--allow-host", host, "--format", "text", "--args", `{"command":"curl -sS --max-time 20 http://`+host+`/"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "page through the proxy") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if hits.Load() == 0 {
		t.Fatal("the server saw no request")
	}
}

// TestSlimLinksNoHeavyPart: the slim build's reason to exist is what it does
// not link. A new import that pulls one of these in (through a shared file
// of cmd/warden or backend/assemble) brings their start-up back to every
// `warden tool` call.
func TestSlimLinksNoHeavyPart(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "wardenslim", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	for _, heavy := range []string{
		"github.com/anthropics/anthropic-sdk-go/v2",
		"github.com/openai/openai-go/v3",
		"google.golang.org/grpc",
		"google.golang.org/protobuf/proto",
		"go.opentelemetry.io/otel",
		"github.com/warden-dev/warden/backend/telemetry",
		"github.com/warden-dev/warden/backend/settings",
		"github.com/warden-dev/warden/backend/runtime/model/factory",
		"github.com/warden-dev/warden/backend/tui",
		"github.com/warden-dev/warden/backend/server",
		"github.com/warden-dev/warden/backend/api",
		"github.com/warden-dev/warden/backend/mcp",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/google/jsonschema-go/jsonschema",
		"github.com/warden-dev/warden/backend/tools/browser",
		"github.com/mxschmitt/playwright-go",
		"github.com/warden-dev/warden/backend/tools/computer",
		"github.com/kbinani/screenshot",
		"github.com/jezek/xgb",
		"github.com/godbus/dbus/v5",
	} {
		if deps[heavy] {
			t.Errorf("the slim build links %s", heavy)
		}
	}
	for _, need := range []string{"github.com/warden-dev/warden/backend/assemble", "github.com/warden-dev/warden/backend/gate",
		"github.com/warden-dev/warden/cmd/warden/internal/handover"} {
		if !deps[need] {
			t.Errorf("the slim build does not link %s (is the list above still the slim build's?)", need)
		}
	}
}
