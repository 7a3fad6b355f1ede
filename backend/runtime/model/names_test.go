package model

import (
	"strings"
	"testing"
)

func TestSafeName(t *testing.T) {
	long := strings.Repeat("x", 70)
	cases := []struct {
		name, in, want string
	}{
		{"dot", "shell.exec", "shell_exec"},
		{"already safe", "write_plan", "write_plan"},
		{"mcp", "mcp-tool:github/create_issue", "mcp__github__create_issue"},
		{"mcp nested slash", "mcp-tool:srv/a/b", "mcp__srv__a__b"},
		{"spaces and unicode", "my tool é", "my_tool__"},
		{"empty", "", "tool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SafeName(tc.in); got != tc.want {
				t.Errorf("SafeName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	a, b := SafeName(long+"a"), SafeName(long+"b")
	if len(a) != 64 || a == b || !ValidWireName(a) {
		t.Errorf("long names: %q %q", a, b)
	}
}

func TestNameMapIsReversible(t *testing.T) {
	names := []string{"shell.exec", "shell_exec", "fs.read", "mcp-tool:srv/tool", "mcp__srv__tool",
		strings.Repeat("y", 80) + ".a", strings.Repeat("y", 80) + ".b", "a.b", "a_b", "a:b"}
	m := NewNameMap(names...)
	seen := map[string]string{}
	for _, n := range names {
		w := m.Wire(n)
		if !ValidWireName(w) {
			t.Errorf("wire name %q of %q is invalid", w, n)
		}
		if prev, dup := seen[w]; dup {
			t.Errorf("%q and %q share wire name %q", prev, n, w)
		}
		seen[w] = n
		back, ok := m.Internal(w)
		if !ok || back != n {
			t.Errorf("Internal(%q) = %q, %v; want %q", w, back, ok, n)
		}
	}
	// The first name listed keeps the plain form.
	if m.Wire("shell.exec") != "shell_exec" || m.Wire("shell_exec") != "shell_exec_2" {
		t.Errorf("collision order: %q %q", m.Wire("shell.exec"), m.Wire("shell_exec"))
	}
	if got, ok := m.Internal("never_offered"); ok || got != "never_offered" {
		t.Errorf("unknown wire name: %q %v", got, ok)
	}
	if got := m.Wire("not.in.map"); got != "not_in_map" {
		t.Errorf("unmapped name: %q", got)
	}
}

func FuzzNameMap(f *testing.F) {
	f.Add("shell.exec", "shell_exec")
	f.Add("mcp-tool:a/b", "mcp__a__b")
	f.Fuzz(func(t *testing.T, a, b string) {
		m := NewNameMap(a, b)
		for _, n := range []string{a, b} {
			w := m.Wire(n)
			if !ValidWireName(w) {
				t.Fatalf("wire %q of %q invalid", w, n)
			}
			if back, ok := m.Internal(w); !ok || back != n {
				t.Fatalf("%q → %q → %q", n, w, back)
			}
		}
	})
}
