package policy

import "testing"

func BenchmarkDecideFsRead(b *testing.B) {
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	call := fsRead(ws + "/src/main.go")
	s := session(WorkspaceWrite, OnRequest)
	b.ReportAllocs()
	for b.Loop() {
		if d := e.Decide(call, s); d.Verdict != VerdictAllow {
			b.Fatal(d.Verdict)
		}
	}
}

func BenchmarkDecideCompoundShell(b *testing.B) {
	e := New(Config{ProtectedPaths: []string{"/home/me/.config/warden"}})
	call := shell("git status --short | grep -v '^??' > /tmp/changed.txt; rg -n TODO . | wc -l && ls -la")
	s := session(WorkspaceWrite, OnRequest)
	if c := ClassifyShell(call.Effects[0].Command, ws); c.Segments != 5 {
		b.Fatalf("%d segments", c.Segments)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := e.Decide(call, s); d.Verdict != VerdictAllow {
			b.Fatal(d.Verdict, d.Detail)
		}
	}
}

func BenchmarkClassifyShell(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ClassifyShell("git log --oneline -n 20 | head -5", ws)
	}
}
