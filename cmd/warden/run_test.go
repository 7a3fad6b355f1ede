//go:build !wardenslim

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/runtime"
)

func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestRunCommand(t *testing.T) {
	script, _ := filepath.Abs(filepath.Join("testdata", "tour.json"))
	cases := []struct {
		name      string
		args      []string
		code      int
		out, err  []string // substrings
		buildGone bool
	}{
		{name: "script tour, headless: the ask becomes a denial", args: []string{"--model", "script:" + script, "tidy up"},
			out: []string{"✓ allow  fs.read (sandbox+policy)", "✓ allow  fs.write (sandbox+policy)",
				"? ask    shell.exec shell=rm -rf build", "no-approver by no-approver", "sandbox-rejected by sandbox", "remedy:", "Finished."}},
		{name: "never approval runs the destructive command", args: []string{"--model", "script:" + script, "--approval", "never", "tidy up"},
			out: []string{"fs.write (sandbox+policy)", "✓ allow  shell.exec (sandbox+policy)"}, buildGone: true},
		{name: "bang without a model", args: []string{"!ls"}, out: []string{"✓ allow  shell.exec", "README.md"}},
		{name: "flags after the prompt count", args: []string{"tidy up", "--model", "script:" + script, "--approval", "never"},
			out: []string{"✓ allow  shell.exec (sandbox+policy)"}, buildGone: true},
		{name: "a dash word after -- is prompt", args: []string{"--", "!ls", "-a"}, out: []string{"✓ allow  shell.exec", ".."}},
		{name: "an unknown flag after the prompt is refused", args: []string{"!ls", "--frob"}, code: 2, err: []string{"flag provided but not defined: -frob"}},
		{name: "prompt without a model", args: []string{"hello"}, code: 2, err: []string{"needs --model"}},
		{name: "no prompt", args: nil, code: 2, err: []string{"no prompt"}},
		{name: "bad approval", args: []string{"--approval", "sometimes", "!ls"}, code: 2, err: []string{"unknown approval policy"}},
		{name: "bad sandbox", args: []string{"--sandbox", "porous", "!ls"}, code: 2, err: []string{"unknown sandbox"}},
		{name: "bad model", args: []string{"--model", "nope:x", "hi"}, code: 2, err: []string{"unknown provider"}},
		{name: "missing script", args: []string{"--model", "script:/nonexistent.json", "hi"}, code: 2, err: []string{"script"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := workspace(t)
			args := append([]string{"run", "--workspace", ws, "--db", filepath.Join(t.TempDir(), "w.db")}, c.args...)
			var out, errb bytes.Buffer
			code := run(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out.String(), errb.String())
			}
			for _, s := range c.out {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range c.err {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
			_, err := os.Stat(filepath.Join(ws, "build"))
			if gone := os.IsNotExist(err); gone != c.buildGone {
				t.Errorf("build removed = %v, want %v", gone, c.buildGone)
			}
		})
	}
}

func TestRunJSON(t *testing.T) {
	script, _ := filepath.Abs(filepath.Join("testdata", "tour.json"))
	ws := workspace(t)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"run", "--json", "--workspace", ws, "--db", filepath.Join(t.TempDir(), "w.db"),
		"--model", "script:" + script, "tidy up"}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	kinds := map[string]int{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var p runtime.Push
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		if p.Type == runtime.PushEvent {
			kinds[string(p.Event.Kind)]++
		}
	}
	if kinds["permission_granted"] != 2 || kinds["permission_denied"] != 2 || kinds["permission_requested"] != 1 {
		t.Fatalf("kinds: %v", kinds)
	}
}

// WARDEN_DB picks the database of `run` as it does for `audit` and `tool`.
func TestRunUsesWardenDB(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	db := filepath.Join(t.TempDir(), "from-env.db")
	t.Setenv("WARDEN_DB", db)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"run", "--workspace", t.TempDir(), "!true"}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("run did not use WARDEN_DB: %v", err)
	}
}
