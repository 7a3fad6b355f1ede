package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantOf reads a case file's first line: "# want: ok ..." or
// "# want: error <substring>".
func wantOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	want, ok := strings.CutPrefix(first, "# want: ")
	if !ok {
		t.Fatalf("%s: first line is not # want: ...", path)
	}
	return want
}

func specList(ans []AnswererSpec, hooks []HookSpec) string {
	var a, h []string
	for _, s := range ans {
		a = append(a, s.Name+":"+s.Kind+":"+s.Timeout.String())
	}
	for _, s := range hooks {
		h = append(h, s.Name+":"+s.When+":"+s.Timeout.String())
	}
	return "answerers=" + strings.Join(a, ",") + " hooks=" + strings.Join(h, ",")
}

// The user file's [[answerers]], [[hooks]] and [remote], one case per
// file in testdata/answerers.
func TestAnswerersUserFile(t *testing.T) {
	files, _ := filepath.Glob("testdata/answerers/*.toml")
	if len(files) < 20 {
		t.Fatalf("only %d cases", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := wantOf(t, f)
			c, err := Load(f, "")
			if msg, isErr := strings.CutPrefix(want, "error "); isErr {
				if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), f) {
					t.Fatalf("error %v, want one naming the file and %q", err, msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := "ok " + specList(c.Answerers, c.Hooks)
			if c.Remote.Address != "" {
				got += " remote=" + c.Remote.Address + "/" + c.Remote.TTL.String()
			}
			if got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			for _, s := range c.Answerers {
				if s.Tier != TierUser || s.File != f {
					t.Fatalf("tier/file %+v", s)
				}
			}
		})
	}
}

// A workspace's own entries are read per session, marked workspace; a
// reviewer model there is left out with a warning.
func TestAnswerersWorkspaceFile(t *testing.T) {
	files, _ := filepath.Glob("testdata/answerers-ws/*.toml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := wantOf(t, f)
			ws := t.TempDir()
			if err := os.MkdirAll(filepath.Join(ws, ".warden"), 0o755); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(f)
			if err := os.WriteFile(WorkspacePath(ws), data, 0o644); err != nil {
				t.Fatal(err)
			}
			ans, hooks, warn, err := ReadWorkspaceAnswerers(ws)
			_, loadErr := Load("", ws)
			if msg, isErr := strings.CutPrefix(want, "error "); isErr {
				if err == nil || !strings.Contains(err.Error(), msg) {
					t.Fatalf("error %v, want %q", err, msg)
				}
				if loadErr == nil {
					t.Fatal("Load took a workspace file whose hooks are broken")
				}
				return
			}
			if err != nil || loadErr != nil {
				t.Fatal(err, loadErr)
			}
			wantList, wantWarn, _ := strings.Cut(strings.TrimPrefix(want, "ok "), " warn=")
			if got := specList(ans, hooks); got != wantList {
				t.Fatalf("got  %s\nwant %s", got, wantList)
			}
			if wantWarn == "" && len(warn) > 0 || wantWarn != "" && (len(warn) != 1 || !strings.Contains(warn[0], wantWarn)) {
				t.Fatalf("warnings %q, want %q", warn, wantWarn)
			}
			for _, s := range ans {
				if s.Tier != TierWorkspace {
					t.Fatalf("tier %+v", s)
				}
			}
		})
	}
	ans, hooks, warn, err := ReadWorkspaceAnswerers(t.TempDir())
	if ans != nil || hooks != nil || warn != nil || err != nil {
		t.Fatal("a workspace without a file has answerers")
	}
}

// A workspace file's [remote] is ignored and reported.
func TestRemoteIgnoredInWorkspace(t *testing.T) {
	ws := t.TempDir()
	_ = os.MkdirAll(filepath.Join(ws, ".warden"), 0o755)
	if err := os.WriteFile(WorkspacePath(ws), []byte("[remote]\naddress = \"0.0.0.0:1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("", ws)
	if err != nil {
		t.Fatal(err)
	}
	if c.Remote.Address != "" || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "[remote] is ignored") {
		t.Fatalf("remote %+v warnings %q", c.Remote, c.Warnings)
	}
	if c.Remote.TTL != DefaultRemoteTTL {
		t.Fatalf("ttl %s", c.Remote.TTL)
	}
}

// A change to anything that changes what runs changes the config hash;
// the file it was read from does not.
func TestAnswererConfigHash(t *testing.T) {
	base := HookSpec{Name: "g", When: HookBefore, Command: []string{"./g"}, Timeout: DefaultCommandTimeout, Tier: TierWorkspace, File: "/a"}
	moved := base
	moved.File, moved.Tier = "/b", TierUser
	if base.ConfigHash() != moved.ConfigHash() {
		t.Fatal("the file changed the hash")
	}
	for name, mod := range map[string]func(*HookSpec){
		"command": func(h *HookSpec) { h.Command = []string{"./g", "-x"} },
		"when":    func(h *HookSpec) { h.When = HookAfter },
		"tools":   func(h *HookSpec) { h.Tools = []string{"fs.write"} },
		"timeout": func(h *HookSpec) { h.Timeout = 2 * DefaultCommandTimeout },
		"name":    func(h *HookSpec) { h.Name = "h" },
	} {
		h := base
		h.Command = append([]string(nil), base.Command...)
		mod(&h)
		if h.ConfigHash() == base.ConfigHash() {
			t.Errorf("%s did not change the hash", name)
		}
	}
	a := AnswererSpec{Kind: AnswererModel, Name: "m", Model: "anthropic:x", Budget: 3}
	b := a
	b.Budget = 4
	if a.ConfigHash() == b.ConfigHash() {
		t.Fatal("budget did not change the hash")
	}
}

func FuzzParseAnswerers(f *testing.F) {
	files, _ := filepath.Glob("testdata/answerers*/*.toml")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Parse(data, "fuzz.toml")
		if err != nil {
			return
		}
		for _, tier := range []string{TierUser, TierWorkspace} {
			ans, hooks, _, err := parseAnswerers(fl, "fuzz.toml", tier)
			if err != nil {
				continue
			}
			for _, a := range ans {
				if !validName().MatchString(a.Name) || a.Timeout <= 0 || a.Timeout > MaxAnswererTimeout {
					t.Fatalf("accepted %+v", a)
				}
				if a.Kind == AnswererModel && tier == TierWorkspace {
					t.Fatal("a workspace file named a reviewer model")
				}
				if a.Kind == AnswererCommand && len(a.Command) == 0 {
					t.Fatal("a command answerer without a command")
				}
			}
			for _, h := range hooks {
				if h.When != HookBefore && h.When != HookAfter || len(h.Command) == 0 {
					t.Fatalf("accepted %+v", h)
				}
			}
		}
	})
}
