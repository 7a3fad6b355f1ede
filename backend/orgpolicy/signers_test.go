package orgpolicy_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/orgpolicy"
)

// testdata/signers/cases.txt holds allowed_signers files and what parsing
// each gives.
func TestParseAllowedSigners(t *testing.T) {
	data, err := os.ReadFile("testdata/signers/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases := strings.Split(string(data), "\n== ")[1:]
	if len(cases) < 15 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		head, body, _ := strings.Cut(c, "\n")
		name, want, _ := strings.Cut(head, " | ")
		t.Run(name, func(t *testing.T) {
			signers, err := orgpolicy.ParseAllowedSigners([]byte(body))
			if n, ok := strings.CutPrefix(want, "ok "); ok {
				if err != nil {
					t.Fatalf("want ok, got %v", err)
				}
				if want, _ := strconv.Atoi(n); len(signers) != want {
					t.Fatalf("want %d signers, got %d", want, len(signers))
				}
				for _, s := range signers {
					if s.Key == nil || s.Principals == "" || s.Line == 0 {
						t.Fatalf("signer %+v", s)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("want an error containing %q, got %v", want, err)
			}
		})
	}
}

func FuzzAllowedSigners(f *testing.F) {
	data, err := os.ReadFile("testdata/signers/cases.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range strings.Split(string(data), "\n== ") {
		_, body, _ := strings.Cut(c, "\n")
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, s string) {
		signers, err := orgpolicy.ParseAllowedSigners([]byte(s))
		if err == nil && len(signers) == 0 {
			t.Fatal("no error and no signer")
		}
		for _, sg := range signers {
			if sg.Key == nil || sg.Principals == "" {
				t.Fatalf("half-read signer %+v", sg)
			}
			for _, ns := range sg.Namespaces {
				if ns == "" {
					t.Fatal("empty namespace accepted")
				}
			}
		}
	})
}
