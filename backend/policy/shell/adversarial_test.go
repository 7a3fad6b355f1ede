package shell

import (
	"strings"
	"testing"
)

// TestLargeInputs feeds inputs built to trigger quadratic paths (brace
// splitting, bracket matching, long sed and awk scripts, long chains). It
// asserts the verdicts; a quadratic regression shows as a test timeout.
func TestLargeInputs(t *testing.T) {
	cases := []struct {
		name, cmd string
		want      Class
	}{
		{"many braces", "echo " + strings.Repeat("{", 50000) + strings.Repeat("]", 50000), ClassUnknown},
		{"many escaped braces", "git status " + strings.Repeat("\\{", 50000), ClassUnknown},
		{"long sed regex", "sed 's/" + strings.Repeat("\\\\", 50000) + "a' f", ClassUnknown},
		{"long sed script", "sed '" + strings.Repeat("p;", 50000) + "' f", ClassReadOnly},
		{"long awk program", "awk 'BEGIN { " + strings.Repeat("x = 1; ", 10000) + "}'", ClassReadOnly},
		{"long chain", strings.Repeat("ls && ", 5000) + "ls", ClassReadOnly},
		{"long chain with rm at the end", strings.Repeat("ls; ", 5000) + "rm -rf x", ClassDestructive},
		{"deep substitution", strings.Repeat("echo $(", 200) + "rm x" + strings.Repeat(")", 200), ClassDestructive},
		{"huge brace sequence", "echo {1..1000000}", ClassUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Classify(c.cmd, testCwd).Class; got != c.want {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
}
