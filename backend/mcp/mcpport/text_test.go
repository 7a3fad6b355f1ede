package mcpport

import "testing"

func TestEscapeForDisplay(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain\nlines\tand tabs", "plain\nlines\tand tabs"},
		{"\x1b[2Jclear", `\x1b[2Jclear`},
		{"bell\a", `bell\x07`},
		{"rtl\u202eevil", `rtl\u202eevil`},
		{"c1\u009b", `c1\x9b`},
	}
	for _, tc := range cases {
		if got := EscapeForDisplay(tc.in); got != tc.want {
			t.Errorf("EscapeForDisplay(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDescriptionDiff(t *testing.T) {
	cases := []struct{ old, cur, want string }{
		{"a\nb", "a\nb", " a\n b\n"},
		{"a", "a\nevil", " a\n+evil\n"},
		{"a\nb", "b", "-a\n b\n"},
		{"", "new tool", "+new tool\n"},
		{"x", "\x1b[31mred", "-x\n+\\x1b[31mred\n"},
	}
	for _, tc := range cases {
		if got := DescriptionDiff(tc.old, tc.cur); got != tc.want {
			t.Errorf("DescriptionDiff(%q, %q) = %q, want %q", tc.old, tc.cur, got, tc.want)
		}
	}
}
