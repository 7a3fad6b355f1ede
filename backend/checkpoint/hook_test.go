package checkpoint

import (
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// Which calls take a checkpoint: the class is "may change files", read
// from the effects the tool states, not from tool names.
func TestMayChangeFiles(t *testing.T) {
	cases := []struct {
		name    string
		effects []policy.Effect
		want    bool
	}{
		{"a read", []policy.Effect{{Kind: policy.EffectRead, Paths: []string{"/w/a"}}}, false},
		{"a search or listing", []policy.Effect{{Kind: policy.EffectRead}, {Kind: policy.EffectMeta}}, false},
		{"a write", []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{"/w/a"}}}, true},
		{"a deletion", []policy.Effect{{Kind: policy.EffectDestructive, Paths: []string{"/w/a"}}}, true},
		{"a shell command or monitor", []policy.Effect{{Kind: policy.EffectExec, Command: "make"}}, true},
		{"an MCP tool of a local server", []policy.Effect{{Kind: policy.EffectMcp, Server: "fs", Tool: "write_file"}}, true},
		{"an MCP tool that declares itself read-only", []policy.Effect{{Kind: policy.EffectMcp, ReadOnlyHint: true}}, false},
		{"the browser", []policy.Effect{{Kind: policy.EffectBrowser, Action: "click"}, {Kind: policy.EffectNetwork}}, false},
		{"the desktop", []policy.Effect{{Kind: policy.EffectDesktop, Action: "screenshot"}}, false},
		{"a read then a write", []policy.Effect{{Kind: policy.EffectRead}, {Kind: policy.EffectWrite}}, true},
		{"no effects", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := mayChangeFiles(tc.effects); got != tc.want {
				t.Fatalf("mayChangeFiles = %v, want %v", got, tc.want)
			}
		})
	}
}
