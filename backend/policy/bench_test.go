package policy

import "testing"

// The contract's targets: under 2 µs (zero allocations) for a simple fs.read
// decision and under 50 µs for a 5-segment compound shell command. Besides
// ns/op, each reports cpu-ns/op, the CPU time of the benchmark's own thread,
// which stays meaningful when other processes share the machine.

func BenchmarkDecideFsRead(b *testing.B) {
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	call := fsRead(ws + "/src/main.go")
	s := session(WorkspaceWrite, OnRequest)
	b.ReportAllocs()
	reportCPU(b, func() {
		if d := e.Decide(call, s); d.Verdict != VerdictAllow {
			b.Fatal(d.Verdict)
		}
	})
}

func BenchmarkDecideCompoundShell(b *testing.B) {
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	call := shell("git status --short | grep -v '^??' > /tmp/changed.txt; rg -n deprecated . | wc -l && ls -la")
	s := session(WorkspaceWrite, OnRequest)
	if c := ClassifyShell(call.Effects[0].Command, ws); c.Segments != 5 {
		b.Fatalf("%d segments", c.Segments)
	}
	b.ReportAllocs()
	reportCPU(b, func() {
		if d := e.Decide(call, s); d.Verdict != VerdictAllow {
			b.Fatal(d.Verdict, d.Detail)
		}
	})
}

func BenchmarkClassifyShell(b *testing.B) {
	b.ReportAllocs()
	reportCPU(b, func() { ClassifyShell("git log --oneline -n 20 | head -5", ws) })
}

// BenchmarkDecideCorpus decides every command of the read-only and unsafe
// corpora (the classifier row of make bench) as shell.exec in a read-only
// sandbox with no cage; one op is the whole corpus. cpu-ns/op divided by the
// corpus size is the per-decision cost, comparable across commits on a
// shared machine.
func BenchmarkDecideCorpus(b *testing.B) {
	e := New(Config{})
	s := session(ReadOnly, OnRequest)
	s.Caged = false
	var calls []Call
	for _, f := range []string{"readonly_corpus.txt", "unsafe_corpus.txt"} {
		for _, c := range readCorpus(b, f) {
			calls = append(calls, shell(c))
		}
	}
	reportCPU(b, func() {
		for _, c := range calls {
			e.Decide(c, s)
		}
	})
	b.ReportMetric(float64(len(calls)), "decisions/op")
}
