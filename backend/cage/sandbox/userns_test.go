package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// nestedUsernsCases reads testdata/nested_userns.txt with this machine's
// system call numbers filled in.
func nestedUsernsCases(t *testing.T) [][2]string {
	t.Helper()
	a, err := nativeArch()
	if err != nil {
		t.Skip(err)
	}
	nums := strings.NewReplacer(
		"{SYS_unshare}", strconv.Itoa(int(a.unshare)),
		"{SYS_clone}", strconv.Itoa(int(a.clone)),
		"{SYS_clone3}", strconv.Itoa(int(a.clone3)),
	)
	f, err := os.Open("testdata/nested_userns.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, script, ok := strings.Cut(line, " | ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		out = append(out, [2]string{name, nums.Replace(script)})
	}
	if len(out) < 8 {
		t.Fatalf("only %d cases", len(out))
	}
	return out
}

// TestNestedUserNamespacesRefused: every way of making a user namespace
// works on this machine unconfined and fails in the cage, under both
// policies and with unix sockets allowed (a different filter).
func TestNestedUserNamespacesRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	ws := testDir(t)
	plain := newCage(t, Config{})
	socks := newCage(t, Config{AllowUnixSockets: []string{"/nonexistent.sock"}})
	for _, tc := range nestedUsernsCases(t) {
		name, script := tc[0], tc[1]
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("unconfined, the spelling does not make a user namespace here, so it proves nothing: %v %s", err, out)
			}
			for _, c := range []struct {
				name string
				cage *Cage
				pol  policy.SandboxPolicy
			}{
				{"workspace-write", plain, policy.SandboxPolicy{Kind: policy.WorkspaceWrite}},
				{"read-only", plain, policy.SandboxPolicy{Kind: policy.ReadOnly}},
				{"unix sockets allowed", socks, policy.SandboxPolicy{Kind: policy.WorkspaceWrite}},
			} {
				out, code, _ := cageRun(t, c.cage, ws, c.pol, script)
				if code == 0 {
					t.Errorf("%s: a user namespace was made in the cage: %s", c.name, out)
				}
				if code == 126 || code == 127 {
					t.Errorf("%s: the program did not run in the cage, so this proves nothing: %s", c.name, out)
				}
			}
		})
	}
}

// TestCloneStillWorks: the filter refuses only CLONE_NEWUSER; processes,
// threads and the other namespaces' flags are untouched.
func TestCloneStillWorks(t *testing.T) {
	ws := testDir(t)
	c := newCage(t, Config{})
	a, err := nativeArch()
	if err != nil {
		t.Skip(err)
	}
	script := `set -e; (true) & wait; sh -c 'echo $$' >/dev/null; perl -MPOSIX -e 'my $r = syscall(` +
		strconv.Itoa(int(a.clone)) + `, 17, 0, 0, 0, 0); POSIX::_exit(0) if $r == 0; waitpid($r, 0); exit($r > 0 ? 0 : 1)'; echo ok`
	out, code, _ := cageRun(t, c, ws, policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, script)
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("plain fork and clone failed in the cage: %d %s", code, out)
	}
}
