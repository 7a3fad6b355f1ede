package policy

import (
	"strings"
	"testing"
)

func secretEngine() *Engine {
	return New(Config{Secrets: SecretPaths("/home/u", []string{"~/work/secrets", "/srv/keys"},
		[]string{"/home/u/.config/warden", "/home/u/.local/share/warden", "/data/w.db"})})
}

// TestSecretReads holds the file tools' reads to testdata/secret_reads.tsv:
// what the cage hides asks (or is denied under Never), and nothing else
// does.
func TestSecretReads(t *testing.T) {
	e := secretEngine()
	rows := readCorpus(t, "secret_reads.tsv")
	if len(rows) < 30 {
		t.Fatalf("%d cases", len(rows))
	}
	for _, row := range rows {
		f := strings.Split(row, "\t")
		if len(f) != 6 {
			t.Fatalf("bad row %q", row)
		}
		t.Run(f[0]+" "+f[1]+" in "+f[2]+" "+f[3], func(t *testing.T) {
			ap, err := ParseApprovalPolicy(f[3])
			if err != nil {
				t.Fatal(err)
			}
			s := session(WorkspaceWrite, ap)
			s.Workspace = f[2]
			d := e.Decide(Call{Tool: f[0], Effects: []Effect{{Kind: EffectRead, Paths: []string{f[1]}}}}, s)
			reason := "-"
			switch d.Verdict {
			case VerdictAsk:
				reason = strings.Join(reasonStrings(d.Reasons), ",")
			case VerdictDeny:
				reason = string(d.Reason)
			}
			if string(d.Verdict) != f[4] || reason != f[5] {
				t.Fatalf("%s %s, want %s %s (%+v)", d.Verdict, reason, f[4], f[5], d.Trace)
			}
			if d.Verdict == VerdictAsk && ap == OnRequest && d.AlwaysRefused == "" {
				t.Fatal("a secret's read offers \"always\"")
			}
		})
	}
}

// TestSecretReadNoGrant: no grant, whatever its signature or reasons,
// lets a secret through; it is approved one read at a time.
func TestSecretReadNoGrant(t *testing.T) {
	e := secretEngine()
	s := session(WorkspaceWrite, OnRequest)
	s.Workspace = "/home/u/proj"
	s.Grants = []Grant{{ID: "g", Signature: "fs.read", Scope: ScopeWorkspace, Reasons: []Reason{ReasonSecretRead}}}
	if d := e.Decide(fsRead("/home/u/.ssh/id_rsa"), s); d.Verdict != VerdictAsk {
		t.Fatalf("a grant covered a secret read: %s %s", d.Verdict, d.Source)
	}
}

// TestSecretFastPath: with secrets configured, a plain read keeps the
// allocation-free fast path.
func TestSecretFastPath(t *testing.T) {
	e := secretEngine()
	s := session(WorkspaceWrite, OnRequest)
	c := fsRead(ws + "/main.go")
	if n := testing.AllocsPerRun(100, func() { _ = e.Decide(c, s) }); n != 0 {
		t.Fatalf("%v allocations per plain read", n)
	}
}

func TestSecretPaths(t *testing.T) {
	got := SecretPaths("/home/u", []string{"~/x", "rel", "/", "/srv/k/../keys"}, []string{"/home/u/.config/warden", ""})
	joined := strings.Join(got, " ")
	for _, want := range []string{"/home/u/.ssh", "/home/u/x", "/srv/keys", "/home/u/.config/warden"} {
		if !strings.Contains(joined+" ", want+" ") {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	for _, p := range got {
		if p == "/" || !strings.HasPrefix(p, "/") {
			t.Errorf("bad entry %q", p)
		}
	}
	if SecretPaths("", []string{"~/x"}, nil) != nil {
		t.Error("no home: the defaults and ~ entries cannot be placed")
	}
}
