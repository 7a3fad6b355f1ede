// Package arch holds the Go twin of frontend/src/structure.test.ts: the
// one-way import rules of docs' architecture, checked with `go list` on
// the real tree.
package arch

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// pkg is what a rule sees of one package: its path inside the module, its
// name, its own imports and everything it depends on (tests excluded: a
// test harness may import what its package may not).
type pkg struct {
	Path    string
	Name    string
	Imports []string
	Deps    []string
}

// rule is one import rule; check returns the offending imports of p.
type rule struct {
	name  string
	check func(p pkg) []string
}

func under(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }

// only keeps the paths outside allowed (roots, with their subpackages).
func only(paths []string, allowed ...string) []string {
	var bad []string
	for _, d := range paths {
		ok := false
		for _, a := range allowed {
			ok = ok || under(d, a)
		}
		if !ok {
			bad = append(bad, d)
		}
	}
	return bad
}

// any keeps the paths under one of roots.
func anyOf(paths []string, roots ...string) []string {
	var hit []string
	for _, d := range paths {
		for _, r := range roots {
			if under(d, r) {
				hit = append(hit, d)
				break
			}
		}
	}
	return hit
}

// rules are the architecture's one-way imports (shared/design/architecture.md).
var rules = []rule{
	{"policy imports no Warden package but policy/shell", func(p pkg) []string {
		switch {
		case p.Path == "backend/policy":
			return only(p.Deps, "backend/policy/shell")
		case under(p.Path, "backend/policy/shell"):
			return only(p.Deps, "backend/policy/shell")
		}
		return nil
	}},
	{"cage imports nothing above policy", func(p pkg) []string {
		if !under(p.Path, "backend/cage") {
			return nil
		}
		return only(p.Deps, "backend/cage", "backend/policy")
	}},
	{"store imports nothing above policy", func(p pkg) []string {
		if !under(p.Path, "backend/store") {
			return nil
		}
		return only(p.Deps, "backend/store", "backend/policy")
	}},
	{"tools and mcp are below the gate", func(p pkg) []string {
		if !under(p.Path, "backend/tools") && !under(p.Path, "backend/mcp") {
			return nil
		}
		return anyOf(p.Deps, "backend/gate", "backend/runtime", "backend/assemble", "backend/server", "backend/tui", "app")
	}},
	{"gate imports no runtime", func(p pkg) []string {
		if !under(p.Path, "backend/gate") {
			return nil
		}
		return anyOf(p.Deps, "backend/runtime", "backend/assemble", "backend/server", "backend/tui", "app")
	}},
	{"runtime does not drive the ask machine itself", func(p pkg) []string {
		if !under(p.Path, "backend/runtime") {
			return nil
		}
		return anyOf(p.Imports, "backend/gate/ask")
	}},
	{"only the mains import assemble", func(p pkg) []string {
		if p.Name == "main" || p.Path == "backend/assemble" {
			return nil
		}
		return anyOf(p.Imports, "backend/assemble")
	}},
}

// violations applies every rule to every package.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		for _, r := range rules {
			for _, bad := range r.check(p) {
				out = append(out, r.name+": "+p.Path+" imports "+bad)
			}
		}
	}
	return out
}

// load lists the module's packages with `go list`, paths relative to the
// module, Warden's own imports only.
func load(t *testing.T) []pkg {
	t.Helper()
	mod, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	module := strings.TrimSpace(string(mod))
	cmd := exec.Command("go", "list", "-json=ImportPath,Name,Imports,Deps", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	own := func(paths []string) []string {
		var r []string
		for _, p := range paths {
			if rel, ok := strings.CutPrefix(p, module+"/"); ok {
				r = append(r, rel)
			}
		}
		return r
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkg
	for {
		var x struct {
			ImportPath, Name string
			Imports, Deps    []string
		}
		if err := dec.Decode(&x); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimPrefix(strings.TrimPrefix(x.ImportPath, module), "/")
		pkgs = append(pkgs, pkg{Path: path, Name: x.Name, Imports: own(x.Imports), Deps: own(x.Deps)})
	}
	return pkgs
}

// TestImportRules: the tree keeps every rule.
func TestImportRules(t *testing.T) {
	pkgs := load(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.Path] = true
	}
	for _, must := range []string{"backend/policy", "backend/gate", "backend/gate/ask", "backend/runtime", "backend/cage/sandbox",
		"backend/store", "backend/tools", "backend/assemble", "cmd/warden"} {
		if !seen[must] {
			t.Fatalf("go list did not list %s: the rules would check nothing", must)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestRulesCatch: each rule fires on the import it forbids, and not on
// its allowed neighbours (a rule that cannot fail checks nothing).
func TestRulesCatch(t *testing.T) {
	cases := []struct {
		name string
		p    pkg
		want bool
	}{
		{"policy importing store", pkg{Path: "backend/policy", Deps: []string{"backend/policy/shell", "backend/store"}}, true},
		{"policy importing its classifier", pkg{Path: "backend/policy", Deps: []string{"backend/policy/shell"}}, false},
		{"the classifier importing policy", pkg{Path: "backend/policy/shell", Deps: []string{"backend/policy"}}, true},
		{"cage importing tools", pkg{Path: "backend/cage/sandbox", Deps: []string{"backend/policy", "backend/tools"}}, true},
		{"cage importing store", pkg{Path: "backend/cage/netproxy", Deps: []string{"backend/store"}}, true},
		{"cage importing policy and itself", pkg{Path: "backend/cage/sandbox", Deps: []string{"backend/policy", "backend/cage/netfwd"}}, false},
		{"store importing the cage", pkg{Path: "backend/store", Deps: []string{"backend/cage/sandbox"}}, true},
		{"store's export importing store", pkg{Path: "backend/store/auditexport", Deps: []string{"backend/store", "backend/policy"}}, false},
		{"a tool importing the gate", pkg{Path: "backend/tools/browser", Deps: []string{"backend/gate"}}, true},
		{"mcp importing the runtime", pkg{Path: "backend/mcp", Deps: []string{"backend/runtime"}}, true},
		{"gate importing the runtime through a dependency", pkg{Path: "backend/gate", Deps: []string{"backend/tools", "backend/runtime/model"}}, true},
		{"gate importing tools and the cage", pkg{Path: "backend/gate", Deps: []string{"backend/tools", "backend/cage/sandbox", "backend/store"}}, false},
		{"runtime driving the ask machine", pkg{Path: "backend/runtime", Imports: []string{"backend/gate/ask"}}, true},
		{"runtime calling the gate", pkg{Path: "backend/runtime", Imports: []string{"backend/gate"}, Deps: []string{"backend/gate/ask"}}, false},
		{"a library importing assemble", pkg{Path: "backend/server", Name: "server", Imports: []string{"backend/assemble"}}, true},
		{"a main importing assemble", pkg{Path: "cmd/warden", Name: "main", Imports: []string{"backend/assemble"}}, false},
		{"a prefix is not a subpackage", pkg{Path: "backend/storex", Deps: []string{"backend/tools"}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := violations([]pkg{tc.p})
			if (len(got) > 0) != tc.want {
				t.Fatalf("violations %v, want any: %v", got, tc.want)
			}
		})
	}
}
