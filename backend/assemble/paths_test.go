package assemble

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

func TestResolveDBPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	def, err := store.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name, named string
		env         map[string]string
		want        string
		explicit    bool
	}{
		{"the flag wins over the environment", filepath.Join(dir, "f.db"), map[string]string{DBEnv: filepath.Join(dir, "e.db")}, filepath.Join(dir, "f.db"), true},
		{"the environment next", "", map[string]string{DBEnv: filepath.Join(dir, "e.db")}, filepath.Join(dir, "e.db"), true},
		{"the default last", "", map[string]string{}, def, false},
		{"an empty environment value is the default", "", map[string]string{DBEnv: ""}, def, false},
		{"a relative flag is made absolute", "rel.db", nil, "", true},
		{"a folder that does not exist yet is created", filepath.Join(dir, "new", "deeper", "w.db"), nil, filepath.Join(dir, "new", "deeper", "w.db"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, explicit, err := resolveDBPath(tc.named, env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == "" {
				want, _ = filepath.Abs(tc.named)
			}
			if got != want || explicit != tc.explicit {
				t.Errorf("= %q explicit=%v, want %q explicit=%v", got, explicit, want, tc.explicit)
			}
			if fi, err := os.Stat(filepath.Dir(got)); err != nil || !fi.IsDir() {
				t.Errorf("the folder of %s was not created: %v", got, err)
			}
		})
	}
}

// TestProtectedPathsOfEveryGraph: whatever front end opens the graph, the
// engine and the cage protect Warden's config folder and its data — the
// whole data folder by default, only the database files when the user
// named the database (which may then sit inside a workspace).
func TestProtectedPathsOfEveryGraph(t *testing.T) {
	userCfg := isolate(t)
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	named := filepath.Join(t.TempDir(), "ws", "warden.db")
	cases := []struct {
		name, db string
		env      string
		want     func(db string) []string
	}{
		{"default database: the data folder", "", "", func(db string) []string { return []string{filepath.Dir(db)} }},
		{"--db: the database files", named, "", dbFiles},
		{"$WARDEN_DB: the database files too", "", named, dbFiles},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(DBEnv, tc.env)
			g, err := Open(context.Background(), Options{DBPath: tc.db, NoModel: true, Headless: true})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			def, err := store.DefaultPath()
			if err != nil {
				t.Fatal(err)
			}
			// The default data folder is protected whichever database runs.
			want := append([]string{filepath.Dir(userCfg), realDir(filepath.Dir(def))}, tc.want(realDB(t, g.DBPath))...)
			got := g.Engine.ExtraProtected()
			for _, w := range want {
				if !slices.Contains(got, w) {
					t.Errorf("protected %q, want it to hold %q", got, w)
				}
			}
			// The engine's view: a write there is a protected-path ask.
			for _, w := range want {
				target := w
				if !strings.HasSuffix(w, ".db") && !strings.Contains(filepath.Base(w), ".db-") {
					target = filepath.Join(w, "x")
				}
				d := g.Engine.Decide(policy.Call{Tool: "fs.write", Effects: []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{target}}}},
					policy.Session{Workspace: filepath.Dir(target), Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}, Caged: true})
				if d.Verdict == policy.VerdictAllow {
					t.Errorf("a write to %s is allowed: %+v", target, d)
				}
			}
		})
	}
}

func dbFiles(db string) []string {
	return []string{db, db + "-wal", db + "-shm", db + "-journal"}
}

func realDB(t *testing.T, db string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(filepath.Dir(db))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.Base(db))
}
