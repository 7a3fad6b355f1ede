package orgpolicy_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/orgpolicy/orgtest"
)

// The target of issue 33: loading the organisation policy at start —
// allowed_signers, the bundle, its SSHSIG signature and its rules' examples
// — takes at most 5 ms. Measured on the full example bundle (4 rules, 20
// examples) and on one with 24 rules, both signed with a real ssh-keygen
// key; LoadTiers adds the user's rules file.

func signedDir(b *testing.B, bundle string) string {
	dir := b.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	orgtest.Signed(b, dir, bundle)
	return dir
}

func bigBundle(b *testing.B) string {
	data, err := os.ReadFile("testdata/bundle/full.toml")
	if err != nil {
		b.Fatal(err)
	}
	s := string(data)
	var more strings.Builder
	for i := 0; i < 20; i++ {
		more.WriteString("\n[[rule]]\ncommand = \"tool" + string(rune('a'+i)) + " deploy\"\ndecision = \"ask\"\nwhy = \"deploys are watched\"\n" +
			"examples = [\"tool" + string(rune('a'+i)) + " deploy prod\"]\nnot_examples = [\"tool" + string(rune('a'+i)) + " status\"]\n")
	}
	return s + more.String()
}

func BenchmarkLoadSignedPolicy(b *testing.B) {
	full, err := os.ReadFile("testdata/bundle/full.toml")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, bundle string
		rules        int
	}{{"4-rules", string(full), 4}, {"24-rules", bigBundle(b), 24}} {
		dir := signedDir(b, c.bundle)
		now := time.Now()
		b.Run(c.name, func(b *testing.B) {
			processCPU(b, func() {
				p, err := orgpolicy.LoadFrom(dir).Load(now)
				if err != nil || !p.Signed || len(p.Rules) != c.rules {
					b.Fatalf("%v %+v", err, p)
				}
			})
		})
	}
}

func BenchmarkLoadTiers(b *testing.B) {
	dir := signedDir(b, bigBundle(b))
	user := filepath.Join(b.TempDir(), "config.toml")
	rules, err := os.ReadFile("../policy/testdata/rules/user.toml")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(orgpolicy.UserRulesPath(user), rules, 0o644); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	processCPU(b, func() {
		if _, err := orgpolicy.LoadTiers(orgpolicy.LoadFrom(dir), user, now); err != nil {
			b.Fatal(err)
		}
	})
}

// processCPU runs f per iteration and reports the process's CPU time per
// operation (user and system, every thread: the loads read files and
// allocate) beside the wall time, which a shared machine inflates.
func processCPU(b *testing.B, f func()) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, n := cpu(), 0
	for b.Loop() {
		f()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpu()-start)/float64(n), "cpu-ns/op")
	}
}
