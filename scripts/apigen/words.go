package main

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// The words of every reason, approval policy, sandbox kind, layer and
// tool come from the policy's one table (backend/policy/words.go): the
// window reads them from api.gen.ts, never spelled by hand.

// reasonValues and layerValues are the enums' values, read from the word
// tables (policy's words_test.go holds each table equal to its enum).
func reasonValues() []string { return sortedKeys(policy.ReasonWords()) }
func layerValues() []string  { return sortedKeys(policy.LayerWords()) }

func sortedKeys[K ~string, V any](m map[K]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}

// words spells the word tables as TypeScript constants, declaring the
// union types they are keyed by.
func (g *tsGen) words() (string, error) {
	refs := map[string]reflect.Type{"ApprovalPolicy": reflect.TypeFor[policy.ApprovalPolicy](),
		"SandboxKind": reflect.TypeFor[policy.SandboxKind](), "Words": reflect.TypeFor[policy.Words]()}
	names := map[string]string{}
	for k, t := range refs {
		n, err := g.ref(t)
		if err != nil {
			return "", err
		}
		names[k] = n
	}
	// Reason and Layer are declared as unions of their values; the API's
	// fields keep them as strings (a stored event may carry a value this
	// build does not know).
	for n, vals := range map[string][]string{"Reason": reasonValues(), "Layer": layerValues()} {
		if _, ok := g.decls[n]; ok {
			return "", fmt.Errorf("%s is also a Go type's name in the API", n)
		}
		g.decls[n] = "export type " + n + " = " + union(vals) + "\n"
		names[n] = n
	}
	var b strings.Builder
	b.WriteString("\n// The words of every reason, approval policy, sandbox kind, layer and tool\n")
	b.WriteString("// (backend/policy/words.go): what the window and the TUI show for each value.\n")
	fmt.Fprintf(&b, "export const reasonWords: Record<%s, string> = {\n", names["Reason"])
	rw := policy.ReasonWords()
	for _, k := range sortedKeys(rw) {
		fmt.Fprintf(&b, "  %s: %s,\n", tsString(k), tsString(rw[policy.Reason(k)]))
	}
	b.WriteString("}\n")
	axis := func(name, key string, vals []string, w func(string) policy.Words) {
		fmt.Fprintf(&b, "\nexport const %s: Record<%s, %s> = {\n", name, key, names["Words"])
		for _, v := range vals {
			x := w(v)
			fmt.Fprintf(&b, "  %s: { label: %s, text: %s },\n", tsString(v), tsString(x.Label), tsString(x.Text))
		}
		b.WriteString("}\n")
	}
	aw := policy.ApprovalWords()
	var approvals []string
	for ap := range aw {
		approvals = append(approvals, ap.String())
	}
	sort.Strings(approvals)
	axis("approvalWords", names["ApprovalPolicy"], approvals, func(v string) policy.Words {
		ap, _ := policy.ParseApprovalPolicy(v)
		return aw[ap]
	})
	sw := policy.SandboxWords()
	var kinds []string
	for k := range sw {
		kinds = append(kinds, k.String())
	}
	sort.Strings(kinds)
	axis("sandboxWords", names["SandboxKind"], kinds, func(v string) policy.Words {
		k, _ := policy.ParseSandboxKind(v)
		return sw[k]
	})
	lw := policy.LayerWords()
	axis("layerWords", names["Layer"], layerValues(), func(v string) policy.Words { return lw[policy.Layer(v)] })
	tw := policy.ToolWords()
	b.WriteString("\n// What \"Always allow\" of a tool's own signature (its name) covers.\n")
	b.WriteString("export const toolWords: Record<string, string> = {\n")
	for _, k := range sortedKeys(tw) {
		fmt.Fprintf(&b, "  %s: %s,\n", tsString(k), tsString(tw[k]))
	}
	b.WriteString("}\n")
	b.WriteString("\n// The answerers beside the human (backend/gate/lineup) in words: Settings'\n")
	b.WriteString("// \"Answerers and hooks\" and the TUI's /answerers.\n")
	for _, t := range []struct {
		name  string
		words map[string]string
		keyed bool // keyed by a union of the values, not string
	}{
		{"answererStateWords", policy.AnswererStateWords(), true},
		{"answererKindWords", policy.AnswererKindWords(), false},
		{"answererTierWords", policy.AnswererTierWords(), true},
		{"answerWords", policy.AnswerWords(), false},
	} {
		key := "string"
		if t.keyed {
			key = union(sortedKeys(t.words))
		}
		fmt.Fprintf(&b, "export const %s: Record<%s, string> = {\n", t.name, key)
		for _, k := range sortedKeys(t.words) {
			fmt.Fprintf(&b, "  %s: %s,\n", tsString(k), tsString(t.words[k]))
		}
		b.WriteString("}\n")
	}
	return b.String(), nil
}

// tsString is s as a single-quoted TypeScript string.
func tsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "'" + r.Replace(s) + "'"
}
