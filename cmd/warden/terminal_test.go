//go:build !wardenslim

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/store"
)

// terminalCase is one line of testdata/terminal.txt.
type terminalCase struct {
	name, format, visible, raw string
}

func terminalCases(t *testing.T) []terminalCase {
	t.Helper()
	f, err := os.Open("testdata/terminal.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []terminalCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if sc.Text() == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 4 {
			t.Fatalf("testdata/terminal.txt:%d: want 4 fields", n)
		}
		raw, err := strconv.Unquote(p[3])
		if err != nil {
			t.Fatalf("testdata/terminal.txt:%d: %v", n, err)
		}
		out = append(out, terminalCase{p[0], p[1], p[2], raw})
	}
	return out
}

// controlFree fails when s holds a byte a terminal acts on (C0 but newline
// and tab, DEL) or a C1 or bidi control.
func controlFree(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("%s reaches the terminal with %U:\n%q", what, r, s)
		}
	}
}

// storedOutputs returns the output text of every completed invocation in db.
func storedOutputs(t *testing.T, db string) []string {
	t.Helper()
	st, _, err := assemble.OpenStore(context.Background(), db, store.MustExist())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Events(context.Background(), store.EventQuery{Kinds: []store.Kind{store.KindToolInvocationCompleted}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if c, ok := e.Event.(store.ToolInvocationCompleted); ok {
			out = append(out, c.Output)
		}
	}
	return out
}

// The front ends that print tool output as text show every control
// sequence as a picture of itself, and the store keeps the bytes: warden
// run (a "!" command), warden tool --format text, audit tail.
func TestTerminalGetsTextNotControl(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	for _, c := range terminalCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ws := workspace(t)
			db := filepath.Join(t.TempDir(), "w.db")
			cmd := "printf '" + c.format + "'"
			runs := []struct {
				name string
				args []string
			}{
				{"warden run", []string{"run", "--workspace", ws, "--db", db, "!" + cmd}},
				{"warden tool --format text", []string{"tool", "shell.exec", "--format", "text", "--workspace", ws, "--db", db,
					"--args", mustJSON(map[string]string{"command": cmd})}},
				{"warden audit tail", []string{"audit", "tail", "--db", db, "--follow=false", "-n", "50"}},
			}
			for _, r := range runs {
				var out, errb bytes.Buffer
				code := run(context.Background(), r.args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s\n%s", r.name, code, out.String(), errb.String())
				}
				controlFree(t, r.name+" stdout", out.String())
				controlFree(t, r.name+" stderr", errb.String())
				shown := out.String()
				if r.name == "warden audit tail" {
					// The payload is JSON: the visible form of its escapes.
					b, _ := json.Marshal(c.raw)
					want := strings.Trim(string(b), `"`)
					if !strings.Contains(shown, want) && !strings.Contains(shown, c.visible) {
						t.Errorf("%s shows neither %q nor %q:\n%s", r.name, want, c.visible, shown)
					}
					continue
				}
				if !strings.Contains(shown, c.visible) {
					t.Errorf("%s does not show %q:\n%s", r.name, c.visible, shown)
				}
			}
			outs := storedOutputs(t, db)
			if len(outs) != 2 {
				t.Fatalf("stored outputs: %q", outs)
			}
			for _, o := range outs {
				if !strings.Contains(o, c.raw) {
					t.Errorf("the stored result lost the raw bytes %q: %q", c.raw, o)
				}
			}
		})
	}
}
