package main

import (
	"os"
	"strings"
	"testing"
)

func TestCommandsOf(t *testing.T) {
	help, err := os.ReadFile("testdata/help.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(commandsOf(string(help)), ",")
	if got != "audit,mcp,policy,run,serve,tool,version" {
		t.Errorf("commands = %s", got)
	}
}

func TestTroffText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "Usage: warden", "Usage: warden\n"},
		{"backslash", `a\b`, `a\eb` + "\n"},
		{"leading dot", ".hidden", `\&.hidden` + "\n"},
		{"leading quote", "'x", `\&'x` + "\n"},
		{"dot inside", "a.b", "a.b\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := troffText(c.in); got != c.want {
				t.Errorf("= %q, want %q", got, c.want)
			}
		})
	}
}

func TestManPageHasEveryCommand(t *testing.T) {
	page := manPage("1.2.3", "2026-12-01", "top help", map[string]string{"audit": "audit help", "serve": ".dot"}, []string{"audit", "serve"})
	for _, want := range []string{".TH WARDEN 1 \"2026-12-01\" \"warden 1.2.3\"", ".SS audit\n.nf\naudit help\n.fi", ".SS serve\n.nf\n\\&.dot\n.fi", "audit.key"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
