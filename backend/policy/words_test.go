package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// enumConsts reads the package's Go files and returns, per enum type
// name, the constants declared of that type with their literal values
// ("" for an iota constant). A const spec without a type in a block takes
// the type of the spec before it, as Go's implicit repetition does.
func enumConsts(t *testing.T, types ...string) map[string]map[string]string {
	t.Helper()
	want := map[string]bool{}
	for _, n := range types {
		want[n] = true
	}
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			typ := ""
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				} else if vs.Type != nil || len(vs.Values) > 0 {
					typ = "" // a new untyped or differently typed spec
					if vs.Type == nil && len(vs.Values) == 1 {
						if call, ok := vs.Values[0].(*ast.CallExpr); ok {
							if id, ok := call.Fun.(*ast.Ident); ok {
								typ = id.Name
							}
						}
					}
				}
				if !want[typ] {
					continue
				}
				if out[typ] == nil {
					out[typ] = map[string]string{}
				}
				for i, n := range vs.Names {
					val := ""
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							val, _ = strconv.Unquote(lit.Value)
						}
					}
					out[typ][n.Name] = val
				}
			}
		}
	}
	return out
}

// TestEveryValueHasWords: a reason, approval policy, sandbox kind or layer
// added to the package without words fails here, before any front end
// shows the bare value.
func TestEveryValueHasWords(t *testing.T) {
	consts := enumConsts(t, "Reason", "Layer", "ApprovalPolicy", "SandboxKind")
	if len(consts["Reason"]) < 14 || len(consts["Layer"]) < 9 {
		t.Fatalf("the enumeration found too little: %v", consts)
	}
	for name, val := range consts["Reason"] {
		if val == "" {
			t.Errorf("reason %s has no literal value", name)
		} else if w := reasonWords[Reason(val)]; strings.TrimSpace(w) == "" {
			t.Errorf("reason %s (%q) has no words", name, val)
		}
	}
	for name, val := range consts["Layer"] {
		if w := layerWords[Layer(val)]; val == "" || w.Label == "" || w.Text == "" {
			t.Errorf("layer %s (%q) has no words", name, val)
		}
	}
	if n := len(consts["ApprovalPolicy"]); n != len(approvalNames) || n != len(approvalWords) {
		t.Errorf("%d approval policies, %d names, %d with words", n, len(approvalNames), len(approvalWords))
	}
	for ap := ApprovalPolicy(0); int(ap) < len(approvalNames); ap++ {
		if w := approvalWords[ap]; w.Label == "" || w.Text == "" {
			t.Errorf("approval policy %s has no words", ap)
		}
	}
	if n := len(consts["SandboxKind"]); n != len(sandboxNames) || n != len(sandboxWords) {
		t.Errorf("%d sandbox kinds, %d names, %d with words", n, len(sandboxNames), len(sandboxWords))
	}
	for k := SandboxKind(0); int(k) < len(sandboxNames); k++ {
		if w := sandboxWords[k]; w.Label == "" || w.Text == "" {
			t.Errorf("sandbox kind %s has no words", k)
		}
	}
	// No words for a value that does not exist (a typo would hide one).
	known := map[string]bool{}
	for _, v := range consts["Reason"] {
		known[v] = true
	}
	for r := range reasonWords {
		if !known[string(r)] {
			t.Errorf("words for %q, which is no reason", r)
		}
	}
}

// TestReasonWordsShape: every reason reads "Label: sentence" or a label
// alone, the shape the front ends cut the label from.
func TestReasonWordsShape(t *testing.T) {
	for r, w := range reasonWords {
		label, text, cut := strings.Cut(w, ": ")
		if label == "" || cut && text == "" || strings.HasSuffix(w, ".") {
			t.Errorf("%s: %q", r, w)
		}
	}
}
