//go:build !wardenslim

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
)

// parityCase is one line of testdata/gate_parity.jsonl. {{ws}} and {{out}}
// in args stand for the workspace and a folder outside it.
type parityCase struct {
	Note  string          `json:"note"`
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args"`
	Flags []string        `json:"flags"`
	Want  string          `json:"want"` // allow | ask | deny | error
}

// recordingApprover records every Ask and refuses it, so nothing asked runs.
type recordingApprover struct {
	mu   sync.Mutex
	asks []gate.ApprovalRequest
}

func (r *recordingApprover) Approve(_ context.Context, req gate.ApprovalRequest) (gate.Approval, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asks = append(r.asks, req)
	return gate.Approval{Approved: false, Note: "recorded by the parity test"}, nil
}

// take returns the asks about the calls themselves. The asks the proxy
// raises for the hosts a caged command reaches (net:<host>:<port>) are
// decisions of their own that policy check does not make: a name is
// asked about before anything resolves it, so even a host this machine
// cannot resolve is asked.
func (r *recordingApprover) take() []gate.ApprovalRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []gate.ApprovalRequest
	for _, a := range r.asks {
		if !strings.HasPrefix(a.Tool, "net:") {
			out = append(out, a)
		}
	}
	r.asks = nil
	return out
}

// TestPolicyCheckMatchesTheGate feeds the same 50 calls — every tool the
// runtime has, good and bad arguments, under several axes — to `warden
// policy check` and to the gate `warden tool` runs (with a recording
// approver), and asserts the same decision, reasons, signature and effects.
// policy check explains exactly what the gate decides because both ask the
// registered tools for the effects; a second copy of the effects drifted.
func TestPolicyCheckMatchesTheGate(t *testing.T) {
	everything, err := filepath.Abs(filepath.Join("..", "..", "testdeps", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(everything); err != nil {
		t.Fatalf("server-everything is not installed: run `npm ci --prefix testdeps` (%v)", err)
	}
	isolateHome(t)
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "warden")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\"]\n", everything)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// Allowed shell calls really run in the cage, whose /tmp is private:
	// the workspace lives outside /tmp.
	ws := cagedDir(t, "parity-ws-")
	out := cagedDir(t, "parity-out-")
	for name, body := range map[string]string{"a.txt": "alpha\n", "src/main.go": "package main\n", "build/x.o": "", ".git/HEAD": "ref: refs/heads/main\n"} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	cases := readParityCases(t, ws, out)
	if len(cases) != 50 {
		t.Fatalf("%d cases, want the 50 the issue names", len(cases))
	}

	// policy check, the CLI, once per set of flags.
	checked := make([]map[string]json.RawMessage, len(cases))
	groups := map[string][]int{}
	var order []string
	for i, c := range cases {
		k := strings.Join(c.Flags, " ")
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		var in bytes.Buffer
		for _, i := range groups[k] {
			line, _ := json.Marshal(map[string]any{"tool": cases[i].Tool, "args": cases[i].Args})
			in.Write(append(line, '\n'))
		}
		var stdout, stderr bytes.Buffer
		args := append([]string{"policy", "check", "--workspace", ws}, cases[groups[k][0]].Flags...)
		run(context.Background(), args, stdio{in: &in, out: &stdout, err: &stderr})
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		if len(lines) != len(groups[k]) {
			t.Fatalf("policy check %q: %d lines for %d calls:\n%s\n%s", k, len(lines), len(groups[k]), stdout.String(), stderr.String())
		}
		for j, i := range groups[k] {
			if err := json.Unmarshal([]byte(lines[j]), &checked[i]); err != nil {
				t.Fatalf("policy check line %q: %v", lines[j], err)
			}
		}
	}

	// The gate, on one graph, as `warden tool` builds it.
	g, err := assemble.Open(context.Background(), assemble.Options{Workspace: ws, Headless: true, NoModel: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	// "Every tool": each tool the runtime has is called at least once.
	called := map[string]bool{}
	for _, c := range cases {
		if t, ok := g.Tool(c.Tool); ok {
			called[t.Name()] = true
		}
	}
	for _, name := range g.ToolNames() {
		if !called[name] && !strings.HasPrefix(name, "mcp-tool:") {
			t.Errorf("no case calls %s", name)
		}
	}
	rec := &recordingApprover{}
	for i, c := range cases {
		t.Run(c.Note, func(t *testing.T) {
			var f toolFlags
			fs := flag.NewFlagSet("parity", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f.register(fs, "")
			if err := fs.Parse(append([]string{"--workspace", ws}, c.Flags...)); err != nil {
				t.Fatal(err)
			}
			f.args = string(c.Args)
			s, err := f.session()
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := callTool(context.Background(), g, s, c.Tool, f, rec)
			if err != nil {
				t.Fatal(err)
			}
			asks := rec.take()
			want := checked[i]
			if e, ok := want["error"]; ok {
				if c.Want != "error" {
					t.Fatalf("policy check: error %s, want %s", e, c.Want)
				}
				if got.Decision != nil || len(asks) > 0 || !got.Result.IsError || !strings.Contains(got.Result.Content[0].Text, "invalid arguments") {
					t.Fatalf("policy check refused the arguments (%s), the gate: decision %+v, %d asks, result %+v", e, got.Decision, len(asks), got.Result)
				}
				return
			}
			var verdict, sig, source string
			var reasons []policy.Reason
			var effects []policy.Effect
			for k, v := range map[string]any{"decision": &verdict, "signature": &sig, "reasons": &reasons, "effects": &effects} {
				if raw, ok := want[k]; ok {
					if err := json.Unmarshal(raw, v); err != nil {
						t.Fatal(err)
					}
				}
			}
			if raw, ok := want["source"]; ok {
				_ = json.Unmarshal(raw, &source)
			}
			if verdict != c.Want {
				t.Fatalf("policy check decided %s %v, the case wants %s", verdict, reasons, c.Want)
			}
			if got.Decision == nil {
				t.Fatalf("gate: no decision (%+v); policy check: %s", got.Result, verdict)
			}
			if !sameJSON(t, got.Effects, effects) {
				t.Errorf("effects differ:\n gate  %s\n check %s", mustJSON(got.Effects), mustJSON(effects))
			}
			switch verdict {
			case "allow":
				if len(asks) > 0 || got.Decision.Verdict != policy.VerdictAllow || got.Decision.Source != source {
					t.Errorf("gate %s (%s) after %d asks, policy check allow (%s)", got.Decision.Verdict, got.Decision.Source, len(asks), source)
				}
			case "ask":
				if len(asks) != 1 || !reflect.DeepEqual(asks[0].Reasons, reasons) || asks[0].Signature != sig {
					t.Fatalf("gate asked %+v, policy check asks %v for %s", asks, reasons, sig)
				}
				if got.Decision.Verdict != policy.VerdictDeny || got.Decision.Reason != policy.ReasonUserDenied {
					t.Errorf("the refused ask ended %s %s", got.Decision.Verdict, got.Decision.Reason)
				}
			case "deny":
				if len(asks) > 0 || got.Decision.Verdict != policy.VerdictDeny || len(reasons) != 1 || got.Decision.Reason != reasons[0] {
					t.Errorf("gate %s %s after %d asks, policy check deny %v", got.Decision.Verdict, got.Decision.Reason, len(asks), reasons)
				}
			}
			if got.Decision.Signature != sig {
				t.Errorf("signature: gate %q, policy check %q", got.Decision.Signature, sig)
			}
			// The cage policy check names is the one the gate hands the
			// tool when the engine allows (a refused ask runs nothing).
			var cage *policy.Cage
			if raw, ok := want["cage"]; ok {
				if err := json.Unmarshal(raw, &cage); err != nil {
					t.Fatal(err)
				}
			}
			if verdict == "allow" && !reflect.DeepEqual(got.Decision.Cage, cage) {
				t.Errorf("cage: gate %s, policy check %s", got.Decision.Cage, cage)
			}
		})
	}
}

func readParityCases(t *testing.T, ws, out string) []parityCase {
	t.Helper()
	f, err := os.Open("testdata/gate_parity.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []parityCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.NewReplacer("{{ws}}", ws, "{{out}}", out).Replace(sc.Text())
		var c parityCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// cagedDir is a fresh folder outside /tmp (the cage's /tmp is private),
// removed after the test.
func cagedDir(t *testing.T, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp(".", prefix)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(d)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(abs) })
	return abs
}

func sameJSON(t *testing.T, a, b []policy.Effect) bool {
	t.Helper()
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return mustJSON(a) == mustJSON(b)
}
