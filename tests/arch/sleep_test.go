package arch

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Issue 37, "no polling": the packages a call passes through wait on the
// event itself (a process's exit, a pipe closing, a socket's readiness, a
// channel), never sleep and look again. This check reads their Go source and
// fails on every sleep it finds — time.Sleep, time.Tick, time.NewTicker, a
// nanosleep system call, and a timer (time.After, time.NewTimer,
// time.AfterFunc) started inside a loop, the shape of a poll — unless
// testdata/sleeps-allowed.txt names it with the reason it has no event to
// wait on. A timer started once outside a loop is a timeout on a blocking
// wait, not a poll; so is one in a function literal a loop starts (each
// goroutine's own deadline). Test files and test-helper packages are not
// read.

// hotPath are the folders (with their subfolders) of the call path: the
// gate and engine's caller, the cage and its network forwarder, the
// checkpoints, the runtime's agent loop and the store it writes, the
// tools, MCP, the composition root, the web server and the CLI.
var hotPath = []string{
	"backend/gate", "backend/cage", "backend/checkpoint", "backend/runtime", "backend/store",
	"backend/tools", "backend/mcp", "backend/assemble", "backend/server", "cmd/warden",
}

// notHotPath are subfolders of hotPath a call does not pass through: the
// desktop's computer use (X11 key and pointer timing) and the browser's
// driver start.
var notHotPath = []string{"backend/tools/computer", "backend/tools/browser"}

// sleep is one sleep or poll found: where and what.
type sleep struct {
	File string // slash path from the module root
	Func string // enclosing function, "Type.Method" for methods
	Call string // e.g. "time.Sleep", "time.After in a loop"
	Line int
}

func (s sleep) key() string { return s.File + "\t" + s.Func + "\t" + s.Call }

// sleepsIn parses one Go file's source and returns its sleeps.
func sleepsIn(path string, src []byte) ([]sleep, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	names := map[string]string{} // local name → import path, for time, syscall, unix
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if p != "time" && p != "syscall" && p != "golang.org/x/sys/unix" {
			continue
		}
		local := filepath.Base(p)
		if im.Name != nil {
			local = im.Name.Name
		}
		names[local] = p
	}
	var out []sleep
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = recvName(fd.Recv.List[0].Type) + "." + name
		}
		walkSleeps(fd.Body, false, func(call string, pos token.Pos) {
			out = append(out, sleep{File: path, Func: name, Call: call, Line: fset.Position(pos).Line})
		}, names)
	}
	return out, nil
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// walkSleeps reports the sleeps under n; inLoop says n is inside a for or
// range loop of the same function.
func walkSleeps(n ast.Node, inLoop bool, report func(string, token.Pos), names map[string]string) {
	ast.Inspect(n, func(c ast.Node) bool {
		switch x := c.(type) {
		case *ast.FuncLit:
			if c != n {
				walkSleeps(x.Body, false, report, names)
				return false
			}
		case *ast.ForStmt:
			if c != n {
				walkSleeps(x.Body, true, report, names)
				for _, part := range []ast.Node{x.Init, x.Cond, x.Post} {
					if part != nil {
						walkSleeps(part, inLoop, report, names)
					}
				}
				return false
			}
		case *ast.RangeStmt:
			if c != n {
				walkSleeps(x.Body, true, report, names)
				walkSleeps(x.X, inLoop, report, names)
				return false
			}
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			pkg, fn := names[id.Name], sel.Sel.Name
			switch {
			case pkg == "time" && (fn == "Sleep" || fn == "Tick" || fn == "NewTicker"):
				report("time."+fn, x.Pos())
			case pkg == "time" && inLoop && (fn == "After" || fn == "NewTimer" || fn == "AfterFunc"):
				report("time."+fn+" in a loop", x.Pos())
			case (pkg == "syscall" || pkg == "golang.org/x/sys/unix") && (fn == "Nanosleep" || fn == "ClockNanosleep" || fn == "Select" && inLoop):
				report(id.Name+"."+fn, x.Pos())
			}
		}
		return true
	})
}

// testHelper says a folder holds test harness code only (storetest,
// wiretest, otelcoltest, internal/testserver, testdata).
func testHelper(dir string) bool {
	b := filepath.Base(dir)
	return strings.HasSuffix(b, "test") || b == "testserver" || b == "testdata" || strings.HasPrefix(b, "_")
}

// hotPathSleeps reads every non-test Go file of hotPath under root.
func hotPathSleeps(t *testing.T, root string) []sleep {
	t.Helper()
	var out []sleep
	for _, top := range hotPath {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if testHelper(p) || slices.ContainsFunc(notHotPath, func(s string) bool { return under(rel, s) }) || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			ss, err := sleepsIn(rel, src)
			if err != nil {
				return err
			}
			out = append(out, ss...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// allowedSleeps reads testdata/sleeps-allowed.txt: file, function, call and
// why, tab-separated; # starts a comment line.
func allowedSleeps(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/sleeps-allowed.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 4 || strings.TrimSpace(parts[3]) == "" {
			t.Fatalf("sleeps-allowed.txt:%d: want FILE<TAB>FUNC<TAB>CALL<TAB>WHY (the why is required): %q", n, line)
		}
		out[strings.Join(parts[:3], "\t")] = parts[3]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoSleepsInTheHotPath fails on a sleep or poll in the call path's
// source that the allow-list does not name, and on an allow-list entry
// that no longer matches anything (so the list cannot hide a new sleep
// behind an old reason).
func TestNoSleepsInTheHotPath(t *testing.T) {
	found := hotPathSleeps(t, "../..")
	allowed := allowedSleeps(t)
	used := map[string]bool{}
	var bad []string
	for _, s := range found {
		if _, ok := allowed[s.key()]; ok {
			used[s.key()] = true
			continue
		}
		bad = append(bad, fmt.Sprintf("%s:%d: %s in %s", s.File, s.Line, s.Call, s.Func))
	}
	for k := range allowed {
		if !used[k] {
			bad = append(bad, "tests/arch/testdata/sleeps-allowed.txt names a sleep that is gone: "+strings.ReplaceAll(k, "\t", " "))
		}
	}
	slices.Sort(bad)
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("%d sleeps in the hot path's source, all named in the allow-list with their reason", len(found)-len(bad))
}

// TestSleepCheckCatches runs the check on source files of its own
// (testdata/sleeps/*.go.txt): each line marked `// want: CALL` must be
// found, and nothing else.
func TestSleepCheckCatches(t *testing.T) {
	files, err := filepath.Glob("testdata/sleeps/*.go.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/sleeps: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int]string{}
			for i, line := range strings.Split(string(src), "\n") {
				if _, w, ok := strings.Cut(line, "// want: "); ok {
					want[i+1] = strings.TrimSpace(w)
				}
			}
			got, err := sleepsIn(file, src)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]bool{}
			for _, s := range got {
				seen[s.Line] = true
				if want[s.Line] != s.Call {
					t.Errorf("line %d: found %q in %s, want %q", s.Line, s.Call, s.Func, want[s.Line])
				}
			}
			for line, w := range want {
				if !seen[line] {
					t.Errorf("line %d: %q not found", line, w)
				}
			}
		})
	}
}
