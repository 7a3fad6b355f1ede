package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/cage/readers"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// readerProbe is one case of testdata/readers_probes.txt.
type readerProbe struct {
	name, reader, workspace string
	setup, outside          string
	files                   []toolFile
}

func readReaderProbes(t *testing.T) []readerProbe {
	t.Helper()
	var out []readerProbe
	for _, c := range readCaseFile(t, "testdata/readers_probes.txt", "reader", "workspace", "setup", "outside", "files") {
		out = append(out, readerProbe{name: c.name, reader: c.last("reader"), workspace: c.last("workspace"),
			setup: c.text("setup"), outside: c.text("outside"), files: c.files()})
	}
	for _, p := range out {
		if p.reader == "" || len(p.files) == 0 || p.outside == "" {
			t.Fatalf("probe %q lacks a reader, files or an outside program", p.name)
		}
		switch p.workspace {
		case "", "home", "db":
		default:
			t.Fatalf("probe %q: unknown workspace %q", p.name, p.workspace)
		}
	}
	return out
}

// provedInItsPackage are the readers whose way in is not a file a caged
// call writes but a loader, the terminal or the resolver: their probes
// need the loader's own package (or the desktop's main package), and run
// there (the inventory names those tests; TestInventoryTestsExist holds
// them to exist).
var provedInItsPackage = map[string]string{
	"browser":        "a planted driver, Node or Chromium in a workspace, a writable root or the working directory is refused before it runs",
	"serve-assets":   "cmd/warden (package main) serves a planted frontend/dist from nowhere",
	"dev-assets":     "the desktop's main package loads assets only from $WARDEN_DEV_ASSETS",
	"forwarder":      "the cage's own set-up refuses a forwarder found in a writable root",
	"mcp-unconfined": "the MCP pool refuses an unconfined server whose code lies in its workspace",
	"terminal":       "the front ends' text is checked byte by byte against control sequences",
	"resolver":       "a real DNS listener sees no query for a denied or unanswered name",
}

// TestEveryReaderHoldsOutside walks the inventory of unconfined readers:
// each reader has probes here or is named as proved in its own package,
// never neither, never both. Every probe plants, through the real gate and
// cage with approval never (a shell command, and fs.write), the bytes that
// would make the reader run something, then runs the reader — real git,
// bash, dash, vim, npm — outside the cage: the marker it would create must
// not exist. The same files written without Warden make it exist, so each
// probe can fail.
func TestEveryReaderHoldsOutside(t *testing.T) {
	probes := readReaderProbes(t)
	byReader := map[string]int{}
	for _, p := range probes {
		byReader[p.reader]++
	}
	known := map[string]bool{}
	for _, r := range readers.Inventory() {
		known[r.ID] = true
		_, elsewhere := provedInItsPackage[r.ID]
		switch {
		case byReader[r.ID] > 0 && elsewhere:
			t.Errorf("reader %s has probes here and is named as proved in its package", r.ID)
		case byReader[r.ID] == 0 && !elsewhere:
			t.Errorf("reader %s (%s) has no probe: add one to testdata/readers_probes.txt", r.ID, r.Name)
		}
	}
	var unknown []string
	for id := range byReader {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	for id := range provedInItsPackage {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Fatalf("readers not in the inventory: %v", unknown)
	}

	isolate(t)
	ctx := context.Background()
	dbDir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(ctx, Options{DBPath: filepath.Join(dbDir, "w.db"), Headless: true, NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.CageStatus.Available {
		t.Fatalf("the cage must work here: %s", g.CageStatus.Reason)
	}
	for _, p := range probes {
		for _, via := range []string{"direct", "shell", "script", "fs.write"} {
			t.Run(p.reader+"/"+p.name+"/"+via, func(t *testing.T) {
				ws, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				if p.workspace == "db" && via != "direct" {
					ws = dbDir
				}
				out := t.TempDir()
				mark := filepath.Join(out, "mark")
				home := out
				if p.workspace == "home" {
					home = ws
				}
				env := append(os.Environ(), "HOME="+home, "MARK="+mark, "GIT_CONFIG_NOSYSTEM=1",
					"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
				bash := func(what, script string) string {
					cmd := exec.Command("bash", "-c", script)
					cmd.Dir, cmd.Env = ws, env
					b, err := cmd.CombinedOutput()
					if err != nil && what == "setup" {
						t.Fatalf("setup: %v %s", err, b)
					}
					return string(b)
				}
				if p.setup != "" {
					bash("setup", p.setup)
				}
				files := make([]toolFile, len(p.files))
				for i, f := range p.files {
					files[i] = f
					files[i].content = strings.ReplaceAll(f.content, "$MARK", mark)
				}
				var results []string
				if via == "direct" {
					for _, f := range files {
						path := filepath.Join(ws, f.path)
						if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
							t.Fatal(err)
						}
						mode := os.FileMode(0o644)
						if f.exec {
							mode = 0o755
						}
						if err := os.WriteFile(path, []byte(f.content), mode); err != nil {
							t.Fatal(err)
						}
					}
				} else {
					never := policy.Never
					sb := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
					sess, err := g.Store.CreateSession(ctx, store.NewSession{Workspace: ws, Title: p.name, Approval: never, Sandbox: sb})
					if err != nil {
						t.Fatal(err)
					}
					call := func(name string, args any) {
						tool, ok := g.Tool(name)
						if !ok {
							t.Fatalf("no tool %s", name)
						}
						raw, _ := json.Marshal(args)
						s := policy.Session{Workspace: ws, Approval: never, Sandbox: sess.Sandbox, Caged: true}
						res, err := g.Gate.Call(ctx, gate.Request{Tool: tool, Args: raw,
							Env:     tools.Env{SessionID: sess.ID, Workspace: ws, Sandbox: sess.Sandbox},
							Session: func(context.Context, tools.Env) (policy.Session, error) { return s, nil }})
						if err != nil {
							t.Fatal(err)
						}
						var text strings.Builder
						for _, c := range res.Result.Content {
							text.WriteString(c.Text)
						}
						results = append(results, fmt.Sprintf("%s %s: %s", name, res.Decision.Verdict, text.String()))
					}
					switch via {
					case "shell": // the engine sees the paths
						call("shell.exec", map[string]any{"command": shellScript(files)})
					case "script": // hidden from the engine: the cage alone stops it
						if err := os.WriteFile(filepath.Join(ws, ".probe.sh"), []byte(shellScript(files)), 0o644); err != nil {
							t.Fatal(err)
						}
						call("shell.exec", map[string]any{"command": "sh .probe.sh"})
						if !strings.HasPrefix(results[0], "shell.exec allow") {
							t.Fatalf("the engine stopped a command it cannot read into: the cage is not what this probe tests\n%s", results[0])
						}
					default:
						for _, f := range files {
							call("fs.write", map[string]any{"path": f.path, "content": f.content, "create_dirs": true})
						}
					}
				}
				said := bash("outside", p.outside)
				_, err = os.Stat(mark)
				ran := err == nil
				if via == "direct" {
					if !ran {
						t.Fatalf("the files written without Warden do not make the reader run anything: the probe proves nothing\n%s", said)
					}
					return
				}
				if ran {
					t.Fatalf("the reader outside the cage ran what the call wrote:\n%s", strings.Join(results, "\n"))
				}
			})
		}
	}
}
