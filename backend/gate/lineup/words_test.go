package lineup

import (
	"reflect"
	"sort"
	"testing"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
)

// The words Settings and the TUI show for the lineup's values come from
// policy's one table: every state, kind, tier and answer has words there,
// and the table names no value the lineup does not have.
func TestAnswererWordsCoverTheLineup(t *testing.T) {
	keys := func(m map[string]string) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	sorted := func(v ...string) []string { sort.Strings(v); return v }
	cases := []struct {
		name  string
		table map[string]string
		want  []string
	}{
		{"states", policy.AnswererStateWords(), sorted(string(StateActive), string(StateUntrusted), string(StateChanged),
			string(StateNotAllowed), string(StateBroken), string(StateLeftOut))},
		{"kinds", policy.AnswererKindWords(), sorted(RoleAnswerer+":"+config.AnswererCommand, RoleAnswerer+":"+config.AnswererModel,
			RoleHook+":"+config.HookBefore, RoleHook+":"+config.HookAfter)},
		{"tiers", policy.AnswererTierWords(), sorted(config.TierUser, config.TierWorkspace)},
		{"answers", policy.AnswerWords(), sorted("allow", "deny", "pass", "ask")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := keys(c.table); !reflect.DeepEqual(got, c.want) {
				t.Errorf("words for %v, the lineup has %v", got, c.want)
			}
			for k, w := range c.table {
				if w == "" {
					t.Errorf("%s has no words", k)
				}
			}
		})
	}
	if got := policy.AnswererKindText(RoleHook, "sometimes"); got != "sometimes hook" {
		t.Errorf("unknown kind: %q", got)
	}
}
