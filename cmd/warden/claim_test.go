package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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

func newClaimWorld(t *testing.T, template string) claimWorld {
	t.Helper()
	w := claimWorld{ws: cagedDir(t, "claim-ws-"), out: cagedDir(t, "claim-out-"), home: cagedDir(t, "claim-home-")}
	if out, err := exec.Command("cp", "-a", template+"/.", w.ws).CombinedOutput(); err != nil {
		t.Fatalf("copy the workspace: %v %s", err, out)
	}
	if err := os.Symlink(w.out, filepath.Join(w.ws, "outlink")); err != nil {
		t.Fatal(err)
	}
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
	template := cagedDir(t, "claim-template-")
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
	db := filepath.Join(t.TempDir(), "w.db")
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
			w := newClaimWorld(t, template)
			cmd := exec.Command("bash", "-c", w.expand(c.attack))
			cmd.Dir, cmd.Env = w.ws, append(os.Environ(), "HOME="+w.home)
			out, _ := cmd.CombinedOutput()
			if !w.happened(t, c.effect) {
				t.Fatalf("the attack does not work unconfined, so the caged runs prove nothing: %s", out)
			}
			for _, ap := range []string{"on-request", "never"} {
				w := newClaimWorld(t, template)
				t.Setenv("HOME", w.home)
				r := w.call(t, db, ap, c.attack)
				cage := r.out.Decision.Cage
				if r.out.Decision.Verdict != policy.VerdictAllow {
					cage = nil // nothing ran
				}
				if w.happened(t, c.effect) && !admits(cage, c.class) {
					t.Fatalf("%s: the effect %s happened; decision %s %v, cage %s\nresult: %s", ap, c.effect,
						r.out.Decision.Verdict, r.out.Decision.Reasons, cage, resultText(r))
				}
				// The twin still runs: always under never; under
				// on-request whenever the engine allows it unasked.
				tw := newClaimWorld(t, template)
				t.Setenv("HOME", tw.home)
				r = tw.call(t, db, ap, c.twin)
				if ap == "on-request" && r.out.Decision.Verdict != policy.VerdictAllow {
					if r.out.Decision.Reason != policy.ReasonNoApprover {
						t.Fatalf("twin %q: %s %s", c.twin, r.out.Decision.Verdict, r.out.Decision.Reason)
					}
					continue
				}
				if r.code != 0 || c.twinEffect != "none" && !tw.happened(t, c.twinEffect) {
					t.Fatalf("%s: the twin %q did not run (exit %d, decision %s, cage %s):\n%s", ap, c.twin, r.code,
						r.out.Decision.Verdict, r.out.Decision.Cage, resultText(r))
				}
			}
		})
	}
}

func (w claimWorld) call(t *testing.T, db, approval, command string) toolRun {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"command": w.expand(command)})
	r := runToolCLI(t, "shell.exec", "--workspace", w.ws, "--db", db, "--sandbox", "danger-full-access",
		"--approval", approval, "--args", string(args))
	if r.out.Decision == nil {
		t.Fatalf("no decision: exit %d %s", r.code, r.stderr)
	}
	return r
}

func resultText(r toolRun) string {
	var b strings.Builder
	for _, c := range r.out.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
