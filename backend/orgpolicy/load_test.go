package orgpolicy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/orgpolicy/orgtest"
	"github.com/warden-dev/warden/backend/policy"
)

const okPolicy = `[sandbox]
widest = "workspace-write"
`

// loadCase sets up an /etc/warden folder and says what loading it gives.
type loadCase struct {
	name  string
	setup func(t *testing.T, dir string)
	// want: "" no policy, "unsigned", "signed", or a part of the error,
	// which must also name the file (wantFile).
	want     string
	wantFile string
}

func signedSetup(policyText string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) { orgtest.Signed(t, dir, policyText) }
}

func loadCases() []loadCase {
	return []loadCase{
		{name: "no folder files", setup: func(*testing.T, string) {}, want: ""},
		{name: "signed", setup: signedSetup(okPolicy), want: "signed"},
		{name: "signed with a comment and an empty line in allowed_signers", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			s, _ := os.ReadFile(filepath.Join(dir, "allowed_signers"))
			orgtest.Write(t, filepath.Join(dir, "allowed_signers"), "# the org's key\n\n"+string(s))
		}, want: "signed"},
		{name: "flipped byte", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			p := filepath.Join(dir, "policy.toml")
			data, _ := os.ReadFile(p)
			data[len(data)-3] ^= 0x01
			orgtest.Write(t, p, string(data))
		}, want: "does not match the file's content", wantFile: "policy.toml"},
		{name: "appended line", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			p := filepath.Join(dir, "policy.toml")
			data, _ := os.ReadFile(p)
			orgtest.Write(t, p, string(data)+"[approval]\nallowed = [\"never\"]\n")
		}, want: "does not match the file's content", wantFile: "policy.toml"},
		{name: "signed by another key", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			other := orgtest.Key(t, t.TempDir(), "mallory")
			orgtest.Sign(t, other, filepath.Join(dir, "policy.toml"))
		}, want: "a key allowed_signers does not list", wantFile: "policy.toml"},
		{name: "expired", setup: signedSetup("expires = \"2020-01-01\"\n" + okPolicy), want: "expired on 2020-01-01", wantFile: "policy.toml"},
		{name: "deleted policy", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			os.Remove(filepath.Join(dir, "policy.toml"))
		}, want: "is missing", wantFile: "policy.toml"},
		{name: "deleted signature", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			os.Remove(filepath.Join(dir, "policy.toml.sig"))
		}, want: "is missing: sign the policy", wantFile: "policy.toml.sig"},
		{name: "garbage signature", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			orgtest.Write(t, filepath.Join(dir, "policy.toml.sig"), "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n")
		}, want: "the signature does not parse", wantFile: "policy.toml"},
		{name: "signed in another namespace", setup: func(t *testing.T, dir string) {
			key := orgtest.Signed(t, dir, okPolicy)
			orgtest.SignNamespace(t, key, filepath.Join(dir, "policy.toml"), "git")
		}, want: `namespace "git"`, wantFile: "policy.toml"},
		{name: "signer limited to other namespaces", setup: func(t *testing.T, dir string) {
			key := orgtest.Signed(t, dir, okPolicy)
			orgtest.Write(t, filepath.Join(dir, "allowed_signers"), orgtest.SignersLine(t, key, "a@b", `namespaces="git,file"`))
		}, want: "do not include warden-policy", wantFile: "policy.toml"},
		{name: "signer no longer valid", setup: func(t *testing.T, dir string) {
			key := orgtest.Signed(t, dir, okPolicy)
			orgtest.Write(t, filepath.Join(dir, "allowed_signers"), orgtest.SignersLine(t, key, "a@b", `valid-before="20200101Z"`))
		}, want: "valid only before", wantFile: "policy.toml"},
		{name: "signer not yet valid", setup: func(t *testing.T, dir string) {
			key := orgtest.Signed(t, dir, okPolicy)
			orgtest.Write(t, filepath.Join(dir, "allowed_signers"), orgtest.SignersLine(t, key, "a@b", `valid-after="20990101"`))
		}, want: "valid only after", wantFile: "policy.toml"},
		{name: "signers file unparsable", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			orgtest.Write(t, filepath.Join(dir, "allowed_signers"), "admin ssh-ed25519 not-base64!!\n")
		}, want: "does not parse", wantFile: "allowed_signers"},
		{name: "signers file empty", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			orgtest.Write(t, filepath.Join(dir, "allowed_signers"), "# nobody\n")
		}, want: "no signer is listed", wantFile: "allowed_signers"},
		{name: "signers file writable by others", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			os.Chmod(filepath.Join(dir, "allowed_signers"), 0o666)
		}, want: "writable by group or others", wantFile: "allowed_signers"},
		{name: "signers file owned by a user", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			os.Chown(filepath.Join(dir, "allowed_signers"), 65534, 65534)
		}, want: "owned by uid 65534", wantFile: "allowed_signers"},
		{name: "signed but unparsable", setup: signedSetup("[sandbox]\nwidest = \"everything\"\n"), want: "does not parse", wantFile: "policy.toml"},
		{name: "signed with a rule whose example fails", setup: signedSetup(`[[rule]]
command = "git push"
decision = "deny"
why = "no"
examples = ["git pull"]
`), want: `does not match its example "git pull"`, wantFile: "policy.toml"},
		{name: "unsigned root-owned", setup: func(t *testing.T, dir string) {
			orgtest.Write(t, filepath.Join(dir, "policy.toml"), okPolicy)
		}, want: "unsigned"},
		{name: "unsigned owned by a user", setup: func(t *testing.T, dir string) {
			orgtest.Write(t, filepath.Join(dir, "policy.toml"), okPolicy)
			os.Chown(filepath.Join(dir, "policy.toml"), 1000, 1000)
		}, want: "owned by uid 1000", wantFile: "policy.toml"},
		{name: "unsigned writable by others", setup: func(t *testing.T, dir string) {
			orgtest.Write(t, filepath.Join(dir, "policy.toml"), okPolicy)
			os.Chmod(filepath.Join(dir, "policy.toml"), 0o646)
		}, want: "writable by group or others", wantFile: "policy.toml"},
		{name: "unsigned writable by group", setup: func(t *testing.T, dir string) {
			orgtest.Write(t, filepath.Join(dir, "policy.toml"), okPolicy)
			os.Chmod(filepath.Join(dir, "policy.toml"), 0o664)
		}, want: "writable by group or others", wantFile: "policy.toml"},
		{name: "folder writable by others", setup: func(t *testing.T, dir string) {
			orgtest.Write(t, filepath.Join(dir, "policy.toml"), okPolicy)
			os.Chmod(dir, 0o777)
		}, want: "writable by group or others"},
		{name: "unsigned expired", setup: func(t *testing.T, dir string) {
			orgtest.Write(t, filepath.Join(dir, "policy.toml"), "expires = 2021-06-01T00:00:00Z\n")
		}, want: "expired", wantFile: "policy.toml"},
		{name: "unsigned symlink to a root file", setup: func(t *testing.T, dir string) {
			other := filepath.Join(t.TempDir(), "managed.toml")
			orgtest.Write(t, other, okPolicy)
			os.Symlink(other, filepath.Join(dir, "policy.toml"))
		}, want: "unsigned"},
	}
}

func TestLoad(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range loadCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Chmod(dir, 0o755)
			c.setup(t, dir)
			p, err := orgpolicy.LoadFrom(dir).Load(now)
			check(t, c, dir, p, err)
		})
	}
}

func check(t *testing.T, c loadCase, dir string, p *orgpolicy.Policy, err error) {
	t.Helper()
	switch c.want {
	case "":
		if err != nil || p != nil {
			t.Fatalf("want no policy, got %v, %v", p, err)
		}
	case "signed", "unsigned":
		if err != nil {
			t.Fatalf("want a %s policy, got %v", c.want, err)
		}
		if p == nil || p.Signed != (c.want == "signed") || p.Org.Signed != p.Signed {
			t.Fatalf("want %s, got %+v", c.want, p)
		}
		if p.Org.Sandbox == nil || *p.Org.Sandbox != policy.WorkspaceWrite {
			t.Fatalf("ceiling not read: %+v", p.Org)
		}
		if c.want == "signed" && (p.Signer == nil || !strings.HasPrefix(p.Signer.Fingerprint(), "SHA256:")) {
			t.Fatalf("signer %+v", p.Signer)
		}
	default:
		var oe *orgpolicy.Error
		if !errors.As(err, &oe) {
			t.Fatalf("want an *orgpolicy.Error containing %q, got %v (policy %+v)", c.want, err, p)
		}
		if p != nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("want %q, got %v", c.want, err)
		}
		if c.wantFile != "" && !strings.Contains(err.Error(), filepath.Join(dir, c.wantFile)) {
			t.Fatalf("the error does not name %s: %v", c.wantFile, err)
		}
		if !strings.Contains(err.Error(), "no session can start") {
			t.Fatalf("the error does not say what it means: %v", err)
		}
	}
}

// The production path, /etc/warden, in a private mount namespace: the
// signed policy applies, whatever HOME and XDG_CONFIG_HOME say, and the
// broken one fails closed.
func TestSystemFolder(t *testing.T) {
	for _, c := range []loadCase{
		{name: "signed", setup: signedSetup(okPolicy), want: "signed"},
		{name: "flipped byte", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			p := filepath.Join(dir, "policy.toml")
			data, _ := os.ReadFile(p)
			data[0] ^= 0x20
			orgtest.Write(t, p, string(data))
		}, want: "does not match the file's content", wantFile: "policy.toml"},
		{name: "deleted policy", setup: func(t *testing.T, dir string) {
			orgtest.Signed(t, dir, okPolicy)
			os.Remove(filepath.Join(dir, "policy.toml"))
		}, want: "is missing", wantFile: "policy.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			orgtest.Mount(t, func(dir string) { c.setup(t, dir) }, func(t *testing.T, _ string) {
				// A repository's .env trying to move the tier.
				t.Setenv("HOME", t.TempDir())
				t.Setenv("XDG_CONFIG_HOME", t.TempDir())
				p, err := orgpolicy.System().Load(time.Now())
				check(t, c, "/etc/warden", p, err)
				if c.want == "signed" && p.File != "/etc/warden/policy.toml" {
					t.Fatalf("file %s", p.File)
				}
			})
		})
	}
}
