package orgpolicy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/backend/orgpolicy"
	"github.com/warden-dev/warden/backend/policy"
)

func seedFiles(f *testing.F, glob string) {
	files, _ := filepath.Glob(glob)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
}

// FuzzParseRules parses arbitrary rules files: no panic, and a file that
// parses holds only rules that compile and pass their own examples.
func FuzzParseRules(f *testing.F) {
	seedFiles(f, "testdata/rules/*.toml")
	seedFiles(f, "../policy/testdata/rules/*.toml")
	f.Fuzz(func(t *testing.T, s string) {
		rules, err := orgpolicy.ParseRules([]byte(s), "rules.toml", policy.TierUser)
		if err != nil {
			return
		}
		if err := orgpolicy.CheckRules(rules); err != nil {
			t.Fatalf("parsed rules fail their check: %v", err)
		}
		for _, r := range rules {
			if r.Tier != policy.TierUser || r.Why == "" || len(r.Examples) == 0 {
				t.Fatalf("rule %+v", r)
			}
		}
	})
}

// FuzzParseBundle parses arbitrary bundles: no panic, and a bundle that
// parses has a digest and only organisation rules.
func FuzzParseBundle(f *testing.F) {
	seedFiles(f, "testdata/bundle/*.toml")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := orgpolicy.ParseBundle([]byte(s), "/etc/warden/policy.toml")
		if err != nil {
			return
		}
		if b.Digest != orgpolicy.Digest([]byte(s)) || !b.Org.Active() {
			t.Fatalf("bundle %+v", b)
		}
		for _, r := range b.Rules {
			if r.Tier != policy.TierOrg {
				t.Fatalf("rule tier %s", r.Tier)
			}
		}
		if b.Org.Sandbox != nil {
			if _, err := b.Org.Sandbox.MarshalText(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
