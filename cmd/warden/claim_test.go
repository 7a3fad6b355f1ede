//go:build !wardenslim

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/policy"
)

// claimCase is one line of testdata/claim_attacks.tsv.
type claimCase struct {
	class, attack, effect, twin, twinEffect string
}

func readClaimCases(t *testing.T) []claimCase {
	t.Helper()
	b, err := os.ReadFile("testdata/claim_attacks.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []claimCase
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 5 {
			t.Fatalf("bad line %q", l)
		}
		out = append(out, claimCase{f[0], f[1], f[2], f[3], f[4]})
	}
	return out
}

// claimWorld is one attack's world: a workspace made from the template,
// a folder outside it and a home folder with the user's files.
type claimWorld struct {
	ws, out, home string
	main          string // refs/heads/main before the call
}

// homeFiles are the user's files in every test home.
var homeFiles = map[string]string{
	".bashrc": "# the user's bashrc\n", ".profile": "# the user's profile\n",
	".gitconfig":             "[user]\n\tname = t\n\temail = t@example.com\n",
	".config/git/config":     "[color]\n\tui = auto\n",
	".cache/go-build/README": "the user's build cache\n", ".cache/go-build/01/keep": "",
	".npm/_cacache/index": "the user's npm cache\n", ".cargo/registry/cache/keep": "", "go/pkg/mod/cache/keep": "",
	".cache/warden/keep": "", ".ssh/id_ed25519": "-----BEGIN PRIVATE-KEY-----\n", ".aws/credentials": "AWS-SECRET\n",
	".config/gh/hosts.yml": "GH-TOKEN\n", ".netrc": "NETRC-PASSWORD\n", ".git-credentials": "GIT-CRED\n",
}

// newClaimWorld makes a fresh workspace and outside folder, and puts the
// home folder (one for the whole test: the cage's list of secrets is made
// from it once) back to the user's files, keeping only the cage's caches.
func newClaimWorld(t *testing.T, template, home string) claimWorld {
	t.Helper()
	w := claimWorld{ws: cagedDir(t, "_claim-ws-"), out: cagedDir(t, "_claim-out-"), home: home}
	if out, err := exec.Command("cp", "-a", template+"/.", w.ws).CombinedOutput(); err != nil {
		t.Fatalf("copy the workspace: %v %s", err, out)
	}
	if err := os.Symlink(w.out, filepath.Join(w.ws, "outlink")); err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{".cache": true, ".cache/warden": true, ".cache/warden-cage": true}
	var clear func(dir, rel string)
	clear = func(dir, rel string) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			r := filepath.Join(rel, e.Name())
			switch {
			case r == ".cache/warden-cage":
			case keep[r]:
				clear(filepath.Join(dir, e.Name()), r)
			default:
				if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	clear(home, "")
	for rel, body := range homeFiles {
		p := filepath.Join(w.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.main = w.ref(t)
	return w
}

func (w claimWorld) ref(t *testing.T) string {
	out, _ := exec.Command("git", "-C", w.ws, "rev-parse", "--verify", "-q", "refs/heads/main").Output()
	return strings.TrimSpace(string(out))
}

func (w claimWorld) expand(cmd string) string {
	return strings.NewReplacer("@OUT@", w.out, "@HOME@", w.home).Replace(cmd)
}

// happened reports whether an effect of the table is on the host.
func (w claimWorld) happened(t *testing.T, effect string) bool {
	t.Helper()
	if effect == "none" {
		return false
	}
	kind, rest, _ := strings.Cut(effect, ":")
	if kind == "branch" {
		return w.ref(t) != w.main
	}
	rel, text, _ := strings.Cut(rest, "~")
	text = w.expand(text)
	var p string
	switch kind {
	case "out":
		p = filepath.Join(w.out, rel)
	case "ws":
		p = filepath.Join(w.ws, rel)
	case "home":
		p = filepath.Join(w.home, rel)
	default:
		t.Fatalf("unknown effect %q", effect)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	if text == "" {
		return true
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		return strings.Contains(target, text)
	}
	b, _ := os.ReadFile(p)
	return bytes.Contains(b, []byte(text))
}

// admits says whether a cage the engine chose without a human's answer
// lets an effect of this class through: only a workspace write by the
// workspace-write or full-access cage (the branch), and a write outside
// the workspace by the full-access cage (the only one that admits it,
// given only under never).
func admits(c *policy.Cage, class string) bool {
	if c == nil {
		return false
	}
	switch class {
	case "branch":
		return c.Shape == policy.CageWorkspaceWrite || c.Shape == policy.CageFullAccess
	case "outside":
		return c.Shape == policy.CageFullAccess
	}
	return false
}

// TestClaimIsEnforced runs every attack of testdata/claim_attacks.tsv — by
// class: writes outside the workspace, git hooks and config, the home
// folder's rc and config files, the user's toolchain caches, secrets, a
// branch moved — through `warden tool` under danger-full-access +
// on-request and danger-full-access + never, and checks the host after
// each call: an effect happens only where the cage the engine's claim chose
// admits it (never without a human for the protected classes), and each
// attack's legitimate twin still runs. Each attack is first run
// unconfined, where it must work.
func TestClaimIsEnforced(t *testing.T) {
	isolateHome(t)
	template := cagedDir(t, "_claim-template-")
	for _, c := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", template}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	for rel, body := range map[string]string{"a.txt": "alpha\n", "src/main.go": "package main\n"} {
		p := filepath.Join(template, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][]string{{"add", "-A"}, {"commit", "-qm", "one"}, {"commit", "-q", "--allow-empty", "-m", "two"}} {
		if out, err := exec.Command("git", append([]string{"-C", template}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	t.Setenv("XDG_CACHE_HOME", "")
	home := cagedDir(t, "_claim-home-")
	t.Setenv("HOME", home)
	newClaimWorld(t, template, home)
	// One graph, as `warden tool` builds it, for every call (opening one
	// per call costs more than the calls): the cage's home is the test's.
	g, err := assemble.Open(context.Background(), assemble.Options{Workspace: template, Headless: true, NoModel: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	cases := readClaimCases(t)
	perClass := map[string]int{}
	for _, c := range cases {
		perClass[c.class]++
	}
	for class, n := range perClass {
		if n < 15 {
			t.Errorf("class %s has %d cases, want at least 15", class, n)
		}
	}
	for _, c := range cases {
		t.Run(c.class+"/"+c.attack, func(t *testing.T) {
			// Unconfined, the attack works: the checks below can fail.
			w := newClaimWorld(t, template, home)
			cmd := exec.Command("bash", "-c", w.expand(c.attack))
			cmd.Dir = w.ws
			out, _ := cmd.CombinedOutput()
			if !w.happened(t, c.effect) {
				t.Fatalf("the attack does not work unconfined, so the caged runs prove nothing: %s", out)
			}
			for _, ap := range []string{"on-request", "never"} {
				w := newClaimWorld(t, template, home)
				out := w.call(t, g, ap, c.attack)
				cage := out.Decision.Cage
				if out.Decision.Verdict != policy.VerdictAllow {
					cage = nil // nothing ran
				}
				if w.happened(t, c.effect) && !admits(cage, c.class) {
					t.Fatalf("%s: the effect %s happened; decision %s %v, cage %s\nresult: %s", ap, c.effect,
						out.Decision.Verdict, out.Decision.Reasons, cage, resultText(out))
				}
			}
			// The twin still runs (under never, where nothing is asked; the
			// claim's cage is the one it gets under on-request too).
			tw := newClaimWorld(t, template, home)
			r := tw.call(t, g, "never", c.twin)
			if r.Result.IsError || c.twinEffect != "none" && !tw.happened(t, c.twinEffect) {
				t.Fatalf("the twin %q did not run (decision %s, cage %s):\n%s", c.twin, r.Decision.Verdict, r.Decision.Cage, resultText(r))
			}
		})
	}
}

// call runs one shell.exec through the graph's gate, exactly as `warden
// tool shell.exec --sandbox danger-full-access --approval AP` does.
func (w claimWorld) call(t *testing.T, g *assemble.Graph, approval, command string) toolOutput {
	t.Helper()
	var f toolFlags
	fs := flag.NewFlagSet("claim", flag.ContinueOnError)
	f.register(fs, "")
	if err := fs.Parse([]string{"--workspace", w.ws, "--sandbox", "danger-full-access", "--approval", approval}); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"command": w.expand(command)})
	f.args = string(args)
	s, err := f.session()
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := callTool(context.Background(), g, s, "shell.exec", f, nil)
	if err != nil || out.Decision == nil {
		t.Fatalf("no decision: %v", err)
	}
	return out
}

func resultText(r toolOutput) string {
	var b strings.Builder
	for _, c := range r.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
