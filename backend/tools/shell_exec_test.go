package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

type shellOut struct {
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal"`
	TimedOut   bool   `json:"timed_out"`
	DurationMs int64  `json:"duration_ms"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Truncated  bool   `json:"truncated"`
	Confined   bool   `json:"confined"`
	Violations []struct {
		Path string `json:"path"`
	} `json:"violations"`
	Hidden []string `json:"hidden"`
}

func shellResult(t *testing.T, r Result) shellOut {
	t.Helper()
	var o shellOut
	if err := json.Unmarshal(r.Structured, &o); err != nil {
		t.Fatalf("structured result: %v (%s)", err, text(r))
	}
	return o
}

func TestShellExec(t *testing.T) {
	sh := NewShellExec(testCage(t))
	tests := []struct {
		name  string
		args  func(env Env) string
		check func(t *testing.T, env Env, r Result, o shellOut)
	}{
		{
			name: "stdout, stderr and exit code",
			args: func(Env) string { return `{"command":"echo out; echo err >&2; exit 3"}` },
			check: func(t *testing.T, _ Env, r Result, o shellOut) {
				if o.ExitCode != 3 || o.Stdout != "out\n" || o.Stderr != "err\n" || !o.Confined || !r.IsError {
					t.Fatalf("%+v", o)
				}
			},
		},
		{
			name: "cwd and env",
			args: func(env Env) string {
				_ = os.Mkdir(filepath.Join(env.Workspace, "sub"), 0o755)
				return `{"command":"pwd; echo $GREETING","cwd":"sub","env":{"GREETING":"hi"}}`
			},
			check: func(t *testing.T, env Env, r Result, o shellOut) {
				if o.Stdout != filepath.Join(env.Workspace, "sub")+"\nhi\n" || r.IsError {
					t.Fatalf("%+v", o)
				}
			},
		},
		{
			name: "secrets do not leak into the cage",
			args: func(Env) string { return `{"command":"echo ${WARDEN_TEST_SECRET:-none}"}` },
			check: func(t *testing.T, _ Env, _ Result, o shellOut) {
				if o.Stdout != "none\n" {
					t.Fatalf("environment leaked: %q", o.Stdout)
				}
			},
		},
		{
			name: "huge output keeps head and tail",
			args: func(Env) string {
				return `{"command":"echo FIRST; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo LAST"}`
			},
			check: func(t *testing.T, _ Env, r Result, o shellOut) {
				if !o.Truncated || !strings.HasPrefix(o.Stdout, "FIRST\n") || !strings.HasSuffix(o.Stdout, "LAST\n") ||
					!strings.Contains(o.Stdout, "bytes truncated") || len(o.Stdout) > 2*shellOutputLimit {
					t.Fatalf("truncation: len=%d truncated=%v head=%q", len(o.Stdout), o.Truncated, o.Stdout[:20])
				}
			},
		},
		{
			name: "timeout kills the whole process group",
			args: func(env Env) string {
				return `{"command":"(sleep 1; echo late > late.txt) & sleep 30","timeout_ms":300}`
			},
			check: func(t *testing.T, env Env, r Result, o shellOut) {
				if !o.TimedOut || !r.IsError || !strings.Contains(text(r), "timed out after 300 ms") || o.DurationMs > 5000 {
					t.Fatalf("%+v %s", o, text(r))
				}
				time.Sleep(1500 * time.Millisecond)
				if exists(filepath.Join(env.Workspace, "late.txt")) {
					t.Fatal("a child outlived the timeout")
				}
			},
		},
		{
			name: "killed by a signal",
			args: func(Env) string { return `{"command":"kill -9 $$"}` },
			check: func(t *testing.T, _ Env, r Result, o shellOut) {
				if !r.IsError || (o.Signal == "" && o.ExitCode != 137) {
					t.Fatalf("%+v", o)
				}
			},
		},
	}
	t.Setenv("WARDEN_TEST_SECRET", "hunter2")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			r := invoke(t, sh, env, tc.args(env))
			tc.check(t, env, r, shellResult(t, r))
		})
	}
}

func TestShellExecBadArguments(t *testing.T) {
	sh := NewShellExec(testCage(t))
	env := testEnv(t)
	writeFile(t, filepath.Join(env.Workspace, "file"), "x")
	tests := []struct{ name, args, want string }{
		{"missing command", `{}`, `missing required argument "command"`},
		{"wrong type", `{"command":["ls"]}`, `argument "command" must be a JSON string`},
		{"blank command", `{"command":"  "}`, "command is empty"},
		{"negative timeout", `{"command":"ls","timeout_ms":-1}`, "timeout_ms must be between"},
		{"huge timeout", `{"command":"ls","timeout_ms":99999999999}`, "timeout_ms must be between"},
		{"nonexistent cwd", `{"command":"ls","cwd":"nope"}`, "cwd nope does not exist"},
		{"cwd is a file", `{"command":"ls","cwd":"file"}`, "cwd file is not a directory"},
		{"bad env name", `{"command":"ls","env":{"A B":"x"}}`, "is not a variable name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sh.Effects(json.RawMessage(tc.args), env); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Effects err = %v, want %q", err, tc.want)
			}
			r := invoke(t, sh, env, tc.args)
			if !r.IsError || !strings.Contains(text(r), tc.want) {
				t.Fatalf("Invoke = %q, want error %q", text(r), tc.want)
			}
		})
	}
}

func TestShellExecEffects(t *testing.T) {
	sh := NewShellExec(testCage(t))
	env := testEnv(t)
	got, err := sh.Effects(json.RawMessage(`{"command":"ls","env":{"PATH":"/tmp/x y"}}`), env)
	if err != nil {
		t.Fatal(err)
	}
	want := policy.Effect{Kind: policy.EffectExec, Command: `PATH='/tmp/x y' ls`, Cwd: env.Workspace}
	if len(got) != 1 || got[0].Kind != want.Kind || got[0].Command != want.Command || got[0].Cwd != want.Cwd {
		t.Fatalf("Effects = %+v, want %+v", got, want)
	}
}

func TestShellExecStreamsAndRunsUnconfinedUnderFullAccess(t *testing.T) {
	sh := NewShellExec(testCage(t))
	env := testEnv(t)
	env.Sandbox = policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	var s streams
	env.Output = s.out
	outside := filepath.Join(workspace(t), "written")
	r := invoke(t, sh, env, string(mustJSON(t, map[string]string{"command": "echo streamed; echo e >&2; touch " + outside})))
	o := shellResult(t, r)
	if o.Confined || !exists(outside) {
		t.Fatalf("DangerFullAccess must run unconfined: %+v", o)
	}
	if s.get("stdout") != "streamed\n" || s.get("stderr") != "e\n" {
		t.Fatalf("streamed stdout %q stderr %q", s.get("stdout"), s.get("stderr"))
	}
}

func TestShellExecReportsViolations(t *testing.T) {
	sh := NewShellExec(testCage(t))
	env := testEnv(t) // no .git: the call makes one, and git's own folders may stay
	r := invoke(t, sh, env, `{"command":"mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"}`)
	o := shellResult(t, r)
	if len(o.Violations) == 0 || !r.IsError || exists(filepath.Join(env.Workspace, ".git/hooks/pre-commit")) {
		t.Fatalf("violation not reported/undone: %+v %s", o, text(r))
	}
}

func TestShellExecUnconfinedReapsBackgroundChildren(t *testing.T) {
	sh := NewShellExec(testCage(t))
	env := testEnv(t)
	env.Sandbox = policy.SandboxPolicy{Kind: policy.DangerFullAccess}
	r := invoke(t, sh, env, `{"command":"(sleep 1; touch late) & echo started"}`)
	if o := shellResult(t, r); o.Stdout != "started\n" || o.Confined {
		t.Fatalf("%+v", o)
	}
	time.Sleep(1500 * time.Millisecond)
	if exists(filepath.Join(env.Workspace, "late")) {
		t.Fatal("a background child outlived the unconfined call")
	}
}

func TestShellExecNamesAHiddenPath(t *testing.T) {
	env := testEnv(t)
	secret := filepath.Join(env.Workspace, "vault")
	writeFile(t, filepath.Join(secret, "key"), "TOP-SECRET")
	c := sandbox.New(sandbox.Config{DenyRead: []string{secret}})
	if st := c.Detect(context.Background()); !st.Available {
		t.Fatalf("the cage must work on this machine: %s", st.Reason)
	}
	r := invoke(t, NewShellExec(c), env, string(mustJSON(t, map[string]string{"command": "cat " + filepath.Join(secret, "key")})))
	o := shellResult(t, r)
	if !r.IsError || strings.Contains(text(r), "TOP-SECRET") || len(o.Hidden) != 1 || o.Hidden[0] != secret ||
		!strings.Contains(text(r), secret+" is hidden from the cage") {
		t.Fatalf("the refusal must name the hidden path: %+v\n%s", o, text(r))
	}
}
