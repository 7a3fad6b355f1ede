// Package orgtest helps tests put an organisation policy where Warden
// reads it — the fixed /etc/warden — without touching the real one: the
// test re-runs itself in a private mount namespace (unshare -m) whose /etc
// is an overlay of the real one and whose /etc/warden is a bind mount of a
// temporary folder. Keys and signatures are made with the real ssh-keygen.
package orgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// childEnv carries, into the re-run test, the test it is and the folder
// mounted over /etc/warden.
const (
	childEnv = "WARDEN_ORGTEST_CHILD"
	dirEnv   = "WARDEN_ORGTEST_DIR"
)

// InChild reports whether this process is the namespaced re-run of t.
func InChild(t testing.TB) bool { return os.Getenv(childEnv) == t.Name() }

// Mount runs body with the folder dir mounted over /etc/warden. The
// parent calls setup(dir) on a fresh folder, re-runs exactly this test in
// a private mount namespace and reports its output; the child skips setup
// and runs body(t, dir) with dir the parent's folder (seen also at
// /etc/warden). Needs root (or a user namespace mapping root), unshare
// and overlayfs; a machine without them fails the test, never skips it.
func Mount(t *testing.T, setup func(dir string), body func(t *testing.T, dir string)) {
	t.Helper()
	if InChild(t) {
		body(t, os.Getenv(dirEnv))
		return
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	setup(dir)
	ov := t.TempDir()
	for _, d := range []string{"upper", "work"} {
		if err := os.Mkdir(filepath.Join(ov, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := `set -e
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$OV/upper,workdir=$OV/work" /etc
mkdir -p /etc/warden
mount --bind "$ORGDIR" /etc/warden
exec "$@"`
	args := []string{"-m", "--propagation", "private", "sh", "-c", script, "sh", os.Args[0],
		"-test.run", runPattern(t.Name()), "-test.count=1", "-test.v"}
	cmd := exec.Command("unshare", args...)
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name(), dirEnv+"="+dir, "OV="+ov, "ORGDIR="+dir)
	out, err := cmd.CombinedOutput()
	text := string(out)
	// The child must have run this very test (a pattern that matched
	// nothing would pass vacuously).
	if err != nil || !strings.Contains(text, "--- PASS: "+t.Name()+" ") {
		t.Fatalf("the namespaced run of %s failed (%v):\n%s", t.Name(), err, text)
	}
	if testing.Verbose() {
		t.Logf("namespaced run:\n%s", text)
	}
}

// runPattern is a -test.run pattern for exactly this test or subtest.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Key makes an Ed25519 key pair with ssh-keygen in dir and returns the
// private key's path (the public one is path + ".pub").
func Key(t testing.TB, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	return path
}

// Sign signs file with key in the warden-policy namespace (file.sig).
func Sign(t testing.TB, key, file string) {
	t.Helper()
	SignNamespace(t, key, file, "warden-policy")
}

// SignNamespace signs file with key in namespace ns.
func SignNamespace(t testing.TB, key, file, ns string) {
	t.Helper()
	_ = os.Remove(file + ".sig")
	out, err := exec.Command("ssh-keygen", "-q", "-Y", "sign", "-f", key, "-n", ns, file).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v: %s", err, out)
	}
}

// SignersLine is an allowed_signers line for key's public half, with
// options (`namespaces="warden-policy"`...) when given.
func SignersLine(t testing.TB, key, principal, options string) string {
	t.Helper()
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(pub))
	line := principal + " "
	if options != "" {
		line += options + " "
	}
	return line + f[0] + " " + f[1] + "\n"
}

// Write writes a file with mode 0644 (root's, as the test runs as root).
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Signed writes policy into dir with an allowed_signers of a fresh key and
// the signature; it returns the key.
func Signed(t testing.TB, dir, policy string) string {
	t.Helper()
	keys := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-keys")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	key := Key(t, keys, "admin")
	Write(t, filepath.Join(dir, "allowed_signers"), SignersLine(t, key, "admin@example.org", `namespaces="warden-policy"`))
	Write(t, filepath.Join(dir, "policy.toml"), policy)
	Sign(t, key, filepath.Join(dir, "policy.toml"))
	return key
}
