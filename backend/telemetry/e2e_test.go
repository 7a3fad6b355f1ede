package telemetry_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/telemetry"
	"github.com/warden-dev/warden/backend/telemetry/otelcoltest"
)

// The end-to-end test of issue 34: a real collector (built from its Go
// modules), a real Warden graph (assemble.Open: store, engine, cage,
// runtime) in a child process that can be SIGKILLed, 100 mixed calls from
// a scripted model, asks answered through the window's Answer method, a
// user's and a workspace's rules.toml and a command answerer configured in
// the user's config file (rules.toml as docs/organisation.md shows it,
// [[answerers]] as backend/config/answerers.go reads it).

// phase is one batch of scripted calls and the layer each must record.
type phase struct {
	name  string
	calls []scripted
}

type scripted struct {
	tool  string
	args  map[string]any
	layer policy.Layer
	// detail, when set, is the exact warden.decision.layer_detail the
	// collector must hold: the rule's file:line, the answerer's kind:name.
	detail string
}

// The rules and the answerer of the run. The user's rule that denies
// pushes is the second [[rule]] of its file (line 9), the workspace's
// path rule the first of its own (line 2): the records must name them.
const (
	userRules = `# the user's rules
[[rule]]
command = "docker run"
decision = "ask"
why = "containers are reviewed"
examples = ["docker run alpine"]
not_examples = ["docker ps"]

[[rule]]
command = "git push"
decision = "deny"
why = "pushes go through the release pipeline"
examples = ["git push", "git -C sub push --force origin x", "bash -c 'git push'"]
not_examples = ["git status", "echo git push"]
`
	userRuleLine = 9
	wsRules      = `# the repository's rules
[[rule]]
paths = ["secrets/**"]
decision = "deny"
why = "key material stays out of the agent's reach"
examples = ["secrets/prod.key"]
not_examples = ["src/main.go"]
`
	wsRuleLine = 2
	// answererName is the command answerer of the user's config. It allows
	// removing the scratch folders d1…d9 and passes everything else on
	// (d0 is the human's: answered "always", it becomes a session grant).
	answererName = "e2e-scratch"
	answererWhy  = "scratch folders may go"
	answererProg = `#!/bin/sh
q=$(cat)
case "$q" in
*'"signature":"shell=rm -rf d0"'*) echo '{"answer":"pass","reason":"d0 is for the human"}' ;;
*'"signature":"shell=rm -rf d'[1-9]'"'*) echo '{"answer":"allow","reason":"` + answererWhy + `"}' ;;
*) echo '{"answer":"pass","reason":"not a scratch folder"}' ;;
esac
`
)

// callsEnv is what the calls' arguments and expected details name.
type callsEnv struct {
	hostPort           int    // the host service the caged curl reaches
	userRules, wsRules string // the rules files
}

func phases(env callsEnv) []phase {
	rep := func(n int, c scripted) []scripted {
		out := make([]scripted, n)
		for i := range out {
			out[i] = c
		}
		return out
	}
	read := scripted{tool: "fs.read", args: map[string]any{"path": "f.txt"}, layer: policy.LayerPolicy}
	outside := scripted{tool: "fs.write", args: map[string]any{"path": "/etc/warden-e2e-outside", "content": "x"}, layer: policy.LayerSandbox}
	protected := scripted{tool: "fs.write", args: map[string]any{"path": ".env", "content": "A=1\n"}, layer: policy.LayerHuman}
	// "rm -rf d0" asks (destructive) with the exact signature
	// shell=rm -rf d0; the answerer passes it on, the human answers
	// "always", and every later "rm -rf d0" is allowed by that session
	// grant.
	rm := func(layer policy.Layer) scripted {
		return scripted{tool: "shell.exec", args: map[string]any{"command": "rm -rf d0"}, layer: layer}
	}
	curl := scripted{tool: "shell.exec", args: map[string]any{"command": fmt.Sprintf("curl -sS -o /dev/null http://127.0.0.1:%d/", env.hostPort)}, layer: policy.LayerPolicy}
	frozen := scripted{tool: "fs.write", args: map[string]any{"path": "plan.txt", "content": "x"}, layer: policy.LayerPlanning}
	// The user's deny rule, in three spellings of one push.
	pushDetail := fmt.Sprintf("user rule %s:%d", env.userRules, userRuleLine)
	var pushes []scripted
	for _, cmd := range []string{"git push origin main", "git -C . push --force origin x", "bash -c 'git push'"} {
		pushes = append(pushes, scripted{tool: "shell.exec", args: map[string]any{"command": cmd}, layer: policy.LayerRule, detail: pushDetail})
	}
	// The workspace's deny rule on a path.
	secret := scripted{tool: "fs.write", args: map[string]any{"path": "secrets/prod.key", "content": "k"}, layer: policy.LayerRule,
		detail: fmt.Sprintf("workspace rule %s:%d", env.wsRules, wsRuleLine)}
	// Each scratch folder's removal asks (destructive) with its own
	// signature: the command answerer allows each, one call at a time.
	var scratch []scripted
	for i := 1; i <= 5; i++ {
		scratch = append(scratch, scripted{tool: "shell.exec", args: map[string]any{"command": fmt.Sprintf("rm -rf d%d", i)},
			layer: policy.LayerAnswerer, detail: "command:" + answererName})
	}

	a := rep(20, read)
	a = append(a, rep(5, outside)...)
	a = append(a, rm(policy.LayerHuman)) // answered "always": a session grant
	for range 4 {
		a = append(a, rm(policy.LayerGrant))
	}
	a = append(a, rep(5, protected)...)
	a = append(a, rep(10, curl)...)
	a = append(a, pushes...)
	a = append(a, rep(2, secret)...)
	b := rep(15, read)
	b = append(b, scratch...)
	b = append(b, rep(5, outside)...)
	for range 5 {
		b = append(b, rm(policy.LayerGrant))
	}
	b = append(b, rep(5, protected)...)
	b = append(b, rep(5, curl)...)
	return []phase{{"a", a}, {"b", b}, {"c", rep(10, frozen)}}
}

// script writes the model's turns: each phase's calls in one turn, then a
// text turn that ends the turn.
func script(t *testing.T, path string, ps []phase) {
	type call struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}
	type turn struct {
		Text      string `json:"text,omitempty"`
		ToolCalls []call `json:"tool_calls,omitempty"`
	}
	var turns []turn
	n := 0
	for _, p := range ps {
		var calls []call
		for _, c := range p.calls {
			n++
			calls = append(calls, call{ID: fmt.Sprintf("c%03d", n), Name: c.tool, Args: c.args})
		}
		turns = append(turns, turn{Text: "phase " + p.name, ToolCalls: calls}, turn{Text: "phase " + p.name + " done"})
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "name": "telemetry-e2e", "turns": turns, "on_end": "end"})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rig is one run's folders and files.
type rig struct {
	dir, ws, db, cfg, scriptPath string
	port                         int
	col                          *otelcoltest.Collector
	ps                           []phase
}

func newRig(t *testing.T) *rig {
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(base, "warden-cage-test")
	os.MkdirAll(base, 0o755)
	dir, err := os.MkdirTemp(base, "telemetry-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	r := &rig{dir: dir, ws: filepath.Join(dir, "ws"), db: filepath.Join(dir, "data", "warden.db"),
		cfg: filepath.Join(dir, "config", "warden", "config.toml"), scriptPath: filepath.Join(dir, "script.json")}
	for _, d := range []string{r.ws, filepath.Dir(r.db), filepath.Dir(r.cfg)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(r.ws, "f.txt"), []byte("hello\n"), 0o644)
	for i := 0; i < 10; i++ {
		os.MkdirAll(filepath.Join(r.ws, fmt.Sprintf("d%d", i), "x"), 0o755)
	}
	// The host service the caged curl reaches through Warden's proxy.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	var hp int
	fmt.Sscanf(srv.URL, "http://127.0.0.1:%d", &hp)
	// The user's rules beside config.toml, the workspace's in .warden/,
	// the answerer's program beside the user's config (outside /tmp: the
	// cage's /tmp is its own).
	env := callsEnv{hostPort: hp, userRules: filepath.Join(filepath.Dir(r.cfg), "rules.toml"),
		wsRules: filepath.Join(r.ws, ".warden", "rules.toml")}
	prog := filepath.Join(filepath.Dir(r.cfg), answererName)
	os.MkdirAll(filepath.Dir(env.wsRules), 0o755)
	for _, f := range []struct {
		path, text string
		mode       os.FileMode
	}{{env.userRules, userRules, 0o644}, {env.wsRules, wsRules, 0o644}, {prog, answererProg, 0o755}} {
		if err := os.WriteFile(f.path, []byte(f.text), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	r.ps = phases(env)
	script(t, r.scriptPath, r.ps)
	r.port = otelcoltest.FreePort(t)
	r.col = otelcoltest.New(t, dir, r.port)
	conf := fmt.Sprintf(`[model]
spec = "script:%s"

[defaults]
approval = "on-request"
sandbox = "workspace-write"
network = true

[network]
allow = ["127.0.0.1:%d"]

[[answerers]]
kind = "command"
name = %q
command = [%q]
timeout = "60s"

[telemetry]
endpoint = "%s"
metrics_interval = "1s"
`, r.scriptPath, hp, answererName, prog, r.col.Endpoint)
	if err := os.WriteFile(r.cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// child starts this test binary as a Warden process running mode.
func (r *rig) child(t *testing.T, mode string) (*exec.Cmd, *strings.Builder) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestE2EChild$", "-test.v")
	cmd.Env = append(os.Environ(), "WARDEN_E2E_CHILD="+mode, "WARDEN_E2E_DIR="+r.dir,
		"XDG_CONFIG_HOME="+filepath.Join(r.dir, "config"), "XDG_DATA_HOME="+filepath.Join(r.dir, "data"))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

func waitFile(t *testing.T, path string, d time.Duration, cmd *exec.Cmd, out *strings.Builder) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not appear within %s; child output:\n%s", path, d, out.String())
}

// TestE2EChild is the Warden process of the end-to-end tests (it does
// nothing unless started by one).
func TestE2EChild(t *testing.T) {
	mode := os.Getenv("WARDEN_E2E_CHILD")
	if mode == "" {
		return
	}
	dir := os.Getenv("WARDEN_E2E_DIR")
	ctx := context.Background()
	g, err := assemble.Open(ctx, assemble.Options{DBPath: filepath.Join(dir, "data", "warden.db"), Workspace: filepath.Join(dir, "ws"), Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	if mode == "drain" {
		// A later start: the sender sends what the killed process left.
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			st, err := g.TelemetryStatus(ctx)
			if err == nil && st.Queued == 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	svc := g.Service
	sess, err := svc.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: filepath.Join(dir, "ws"), Title: "telemetry e2e"})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "session"), []byte(sess.ID), 0o644)
	turn := func(text string) {
		if err := svc.SendMessage(ctx, sess.ID, text); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Minute)
		for time.Now().Before(deadline) {
			asks, err := svc.PendingApprovals(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range asks {
				ans := runtime.AnswerArgs{RequestID: a.RequestID, Answer: "once"}
				switch {
				case a.Signature == "shell=rm -rf d0" && len(a.Answers) == 0:
					// The answerer has not passed it on yet: the human
					// answers once it reaches them.
					continue
				case a.Signature == "shell=rm -rf d0":
					ans.Answer, ans.Scope = "always", policy.ScopeSession
				case strings.HasPrefix(a.Signature, "shell=rm "):
					continue // the answerer's to answer, not the human's
				}
				if err := svc.Answer(ctx, ans); err != nil {
					t.Logf("answer %s: %v", a.RequestID, err)
				}
			}
			s, err := svc.GetSession(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Busy && len(asks) == 0 {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		asks, _ := svc.PendingApprovals(ctx, sess.ID)
		t.Fatalf("turn %q did not end; pending asks: %+v", text, asks)
	}
	turn("phase a")
	os.WriteFile(filepath.Join(dir, "a.done"), nil, 0o644)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.b")); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	turn("phase b")
	if _, err := svc.SetPlanning(ctx, sess.ID, true); err != nil {
		t.Fatal(err)
	}
	turn("phase c")
	if _, err := svc.SetPlanning(ctx, sess.ID, false); err != nil {
		t.Fatal(err)
	}
	// A long-running Warden keeps sending: wait until the sender (in its
	// backoff from the outage) has caught up.
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if st, err := g.TelemetryStatus(ctx); err == nil && st.Queued == 0 {
			break
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "all.done"), nil, 0o644)
}

func openLocal(t *testing.T, r *rig) *store.Store {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(r.dir, "config"))
	st, _, err := assemble.OpenStore(context.Background(), r.db, store.MustExist())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// readCopies reads the collector's file. The collector may be appending
// a document right then: a read that ends inside one is tried again (a
// file that stays unreadable for 10 s fails the test).
func readCopies(t *testing.T, path string) []telemetry.Copy {
	t.Helper()
	read := func() ([]telemetry.Copy, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		cs, _, err := telemetry.ReadCopies(f)
		return cs, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		cs, err := read()
		if err == nil {
			return cs
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitCopies waits until the collector's file holds want decision records.
func waitCopies(t *testing.T, path string, want int) []telemetry.Copy {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var cs []telemetry.Copy
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			cs = readCopies(t, path)
			if decisions(cs) >= want {
				return cs
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the collector's file holds %d decision records, want %d", decisions(cs), want)
	return nil
}

func decisions(cs []telemetry.Copy) int {
	n := 0
	for _, c := range cs {
		if c.Class == telemetry.ClassDecision {
			n++
		}
	}
	return n
}

// TestCollectorDownThenUp: the first half runs with no collector at all,
// then the collector starts; every record arrives exactly once with the
// layer the call was decided by, verify --against passes, and deleting one
// local row fails both checks at that row.
func TestCollectorDownThenUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real collector")
	}
	if _, err := otelcoltest.Binary(); err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	cmd, out := r.child(t, "run")
	defer cmd.Process.Kill()
	waitFile(t, filepath.Join(r.dir, "a.done"), 5*time.Minute, cmd, out)

	// Half the run is committed and the collector was never there: the
	// calls finished anyway, and their records wait in the outbox.
	st := openLocal(t, r)
	ctx := context.Background()
	stats, err := st.OutboxStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Sent != 0 || stats.Queued < 50 || stats.LastError == "" {
		t.Fatalf("with the collector down: %+v", stats)
	}
	t.Logf("collector down: %d records queued, last error: %s", stats.Queued, stats.LastError)
	if !strings.Contains(stats.LastError, "connection refused") {
		t.Errorf("last error in words: %q", stats.LastError)
	}
	downDur := callDurations(t, st)

	r.col.Start(t)
	os.WriteFile(filepath.Join(r.dir, "go.b"), nil, 0o644)
	waitFile(t, filepath.Join(r.dir, "all.done"), 5*time.Minute, cmd, out)
	cmd.Wait()
	if !cmd.ProcessState.Success() {
		t.Fatalf("the Warden process failed:\n%s", out.String())
	}
	cs := waitCopies(t, r.col.File, 100)
	upDur := callDurations(t, st)
	t.Logf("median decision-to-result of reads: %s with the collector down (first half), %s over the whole run", downDur, upDur)

	// Exactly once, and the right layer for each call.
	seen := map[string]int{}
	recs := map[string]telemetry.Copy{}
	for _, c := range cs {
		seen[fmt.Sprintf("%s/%d", c.SessionID, c.Seq)]++
		if c.Class == telemetry.ClassDecision {
			recs[c.CallID] = c
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("record %s arrived %d times", k, n)
		}
	}
	if decisions(cs) != 100 {
		t.Errorf("%d decision records, want 100", decisions(cs))
	}
	n := 0
	byLayer := map[string]int{}
	for _, p := range r.ps {
		for _, c := range p.calls {
			n++
			id := fmt.Sprintf("c%03d", n)
			got := recs[id]
			byLayer[got.Layer]++
			if got.Layer != string(c.layer) {
				t.Errorf("call %s (%s %v): layer %q, want %q", id, c.tool, c.args, got.Layer, c.layer)
			}
			if c.detail != "" && got.LayerDetail != c.detail {
				t.Errorf("call %s (%s %v): layer detail %q, want %q", id, c.tool, c.args, got.LayerDetail, c.detail)
			}
			want := string(policy.VerdictAllow)
			switch c.layer {
			case policy.LayerRule, policy.LayerSandbox, policy.LayerPlanning:
				want = string(policy.VerdictDeny)
			}
			if got.Decision != want {
				t.Errorf("call %s (%s %v): decision %q, want %q", id, c.tool, c.args, got.Decision, want)
			}
		}
	}
	t.Logf("decision records at the collector by layer: %v", byLayer)
	// The answerer's allows name it as their source too, as docs/telemetry.md
	// says (the file exporter writes OTLP JSON as it is).
	raw, err := os.ReadFile(r.col.File)
	if err != nil {
		t.Fatal(err)
	}
	src := `{"key":"warden.decision.source","value":{"stringValue":"answerer:command:` + answererName + `"}}`
	if n := strings.Count(string(raw), src); n != 5 {
		t.Errorf("%d records with %s, want 5", n, src)
	}
	// What the records say happened, on disk: the answerer's allows ran
	// (d1…d5 are gone, d6…d9 untouched), the workspace rule's denials
	// wrote nothing.
	for i := 0; i < 10; i++ {
		_, err := os.Stat(filepath.Join(r.ws, fmt.Sprintf("d%d", i)))
		if want, removed := i <= 5, os.IsNotExist(err); removed != want {
			t.Errorf("d%d: removed %v, want %v (%v)", i, removed, want, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(r.ws, "secrets", "prod.key")); !os.IsNotExist(err) {
		t.Errorf("a write denied by the workspace's rule happened: %v", err)
	}
	rep, err := telemetry.Against(ctx, st, cs)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("against the collector: %v", rep.Findings())
	}
	if v, err := st.Verify(ctx); err != nil || !v.OK() {
		t.Fatalf("local verify: %v %+v", err, v.Bad)
	}

	// Delete one exported local row (by hand, past the append-only trigger):
	// both checks fail, at that row.
	st.Close()
	victim := deleteRow(t, r.db, cs)
	st = openLocal(t, r)
	v, err := st.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad, ok := v.FirstBad()
	if ok := ok && bad.SessionID == victim.SessionID && (bad.Version == victim.Seq || bad.Version == victim.Seq+1); !ok {
		t.Errorf("local verify after deleting seq %d: %+v", victim.Seq, v.Bad)
	}
	rep, err = telemetry.Against(ctx, st, cs)
	if err != nil {
		t.Fatal(err)
	}
	fs := rep.Findings()
	if len(fs) == 0 || fs[0].Seq != victim.Seq || fs[0].Problem != telemetry.ProblemMissing {
		t.Errorf("against after deleting seq %d: %v", victim.Seq, fs)
	}
}

// deleteRow removes one decision event from the middle of the log the way
// someone with the file would: drop the append-only trigger, delete.
func deleteRow(t *testing.T, db string, cs []telemetry.Copy) telemetry.Copy {
	t.Helper()
	var ds []telemetry.Copy
	for _, c := range cs {
		if c.Class == telemetry.ClassDecision {
			ds = append(ds, c)
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Seq < ds[j].Seq })
	victim := ds[len(ds)/2]
	h, err := sql.Open(store.Driver, db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, q := range []string{"DROP TRIGGER events_no_delete", "PRAGMA foreign_keys = ON"} {
		if _, err := h.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Exec("DELETE FROM events WHERE session_id = ? AND version = ?", victim.SessionID, victim.Seq); err != nil {
		t.Fatal(err)
	}
	return victim
}

// callDurations is the median time from a read's decision to its result
// across the log: a decision never waits for the export.
func callDurations(t *testing.T, st *store.Store) time.Duration {
	t.Helper()
	evs, err := st.Events(context.Background(), store.EventQuery{Kinds: []store.Kind{store.KindPermissionGranted, store.KindToolInvocationCompleted}})
	if err != nil {
		t.Fatal(err)
	}
	granted := map[string]time.Time{}
	var ds []time.Duration
	for _, e := range evs {
		switch x := e.Event.(type) {
		case store.PermissionGranted:
			granted[x.CallID] = e.Time
		case store.ToolInvocationCompleted:
			if at, ok := granted[x.CallID]; ok && x.Tool == "fs.read" {
				ds = append(ds, e.Time.Sub(at))
			}
		}
	}
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// TestKillMidRun: SIGKILL of Warden while calls run and records are in
// flight loses nothing committed: the next start sends the rest, and the
// collector's copy then matches every exported local row.
func TestKillMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real collector")
	}
	r := newRig(t)
	r.col.Start(t)
	cmd, out := r.child(t, "run")
	// Kill once some records reached the collector and calls are running.
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(r.col.File); err == nil && decisions(readCopies(t, r.col.File)) >= 10 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killedAt := decisions(readCopies(t, r.col.File))
	// A later start (drain mode) sends what was committed and not sent.
	cmd2, out2 := r.child(t, "drain")
	if err := cmd2.Wait(); err != nil {
		t.Fatalf("drain: %v\n%s\nfirst run:\n%s", err, out2.String(), out.String())
	}
	st := openLocal(t, r)
	ctx := context.Background()
	cs := readCopies(t, r.col.File)
	rep, err := telemetry.Against(ctx, st, cs)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("after SIGKILL and restart: %v", rep.Findings())
	}
	var local, queued, repeats int
	for _, s := range rep.Sessions {
		local, queued, repeats = local+s.Local, queued+s.Queued, repeats+s.Repeats
	}
	if queued != 0 || local == 0 {
		t.Fatalf("local %d, still queued %d", local, queued)
	}
	t.Logf("killed with %d decisions at the collector; after the restart %d local records all there (%d resent twice)", killedAt, local, repeats)
}
