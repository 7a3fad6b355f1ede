package handover

import (
	"testing"

	"github.com/warden-dev/warden/backend/cage/netfwd/early"
)

func TestOwn(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		own  bool
	}{
		{"a tool call", []string{"warden", "tool", "shell.exec"}, true},
		{"a tool's help", []string{"warden", "tool", "--help"}, true},
		{"version", []string{"warden", "version"}, true},
		{"--version", []string{"warden", "--version"}, true},
		{"-v", []string{"warden", "-v"}, true},
		// Every caged call with network re-executes this binary as its
		// forwarder: it must start in the slim build, not pay for the full.
		{"the cage's network forwarder", []string{"/usr/bin/warden", early.Arg, "-ctl-fd", "3", "--", "true"}, true},
		{"no command", []string{"warden"}, false},
		{"nothing at all", nil, false},
		{"help", []string{"warden", "--help"}, false},
		{"help word", []string{"warden", "help"}, false},
		{"serve", []string{"warden", "serve"}, false},
		{"run", []string{"warden", "run", "hello"}, false},
		{"policy check", []string{"warden", "policy", "check"}, false},
		{"tool as a later word", []string{"warden", "run", "tool"}, false},
		{"a tool-like prefix", []string{"warden", "tools"}, false},
		{"an unknown command", []string{"warden", "frobnicate"}, false},
		{"an empty command", []string{"warden", ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Own(tc.args); got != tc.own {
				t.Errorf("Own(%q) = %v, want %v", tc.args, got, tc.own)
			}
		})
	}
}
