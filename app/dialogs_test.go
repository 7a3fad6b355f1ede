package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/runtime"
)

// auditedApp is an App on a real database with a session whose `!echo` went
// through the gate, so its audit has events to export.
func auditedApp(t *testing.T) (*App, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	g, err := assemble.Open(ctx, assemble.Options{DBPath: filepath.Join(t.TempDir(), "w.db"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	a := New(Options{Version: "test", Service: g.Service})
	s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: t.TempDir(), Title: "export"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Service.SendMessage(ctx, s.ID, "!echo exported"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		evs, err := a.AuditLog(AuditLogArgs{SessionID: s.ID, Kinds: []string{"permission_granted"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the !echo was never granted")
		}
	}
	return a, s.ID
}

// answerSave makes the save dialog answer path (or fail with err) and keeps
// the options it was opened with.
func answerSave(a *App, path string, err error) *wruntime.SaveDialogOptions {
	var seen wruntime.SaveDialogOptions
	a.dialogs.saveFile = func(_ context.Context, o wruntime.SaveDialogOptions) (string, error) {
		seen = o
		return path, err
	}
	return &seen
}

func TestSaveAuditExport(t *testing.T) {
	a, sid := auditedApp(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.jsonl"), []byte(strings.Repeat("stale\n", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, format, answer string
		dialogErr            error
		wantPath             string
		wantErr              string
	}{
		{name: "jsonl where the human chose", format: "jsonl", answer: filepath.Join(dir, "a.jsonl"), wantPath: filepath.Join(dir, "a.jsonl")},
		{name: "csv where the human chose", format: "csv", answer: filepath.Join(dir, "b.csv"), wantPath: filepath.Join(dir, "b.csv")},
		{name: "replaces an existing file whole", format: "jsonl", answer: filepath.Join(dir, "old.jsonl"), wantPath: filepath.Join(dir, "old.jsonl")},
		{name: "an uncleaned path is cleaned", format: "jsonl", answer: dir + "/sub/../c.jsonl", wantPath: filepath.Join(dir, "c.jsonl")},
		{name: "cancel writes nothing", format: "jsonl", answer: ""},
		{name: "dialog failure", format: "csv", dialogErr: errors.New("gtk went away"), wantErr: "save dialog: gtk went away"},
		{name: "missing folder names the path", format: "csv", answer: filepath.Join(dir, "nope", "d.csv"), wantErr: "save audit export to " + filepath.Join(dir, "nope", "d.csv")},
		{name: "a folder is not overwritten", format: "csv", answer: filepath.Join(dir, "folder.csv"), wantErr: "save audit export to " + filepath.Join(dir, "folder.csv") + ": it is a folder"},
		{name: "a relative answer is refused", format: "csv", answer: "e.csv", wantErr: `relative path "e.csv"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen := answerSave(a, tc.answer, tc.dialogErr)
			got, err := a.SaveAuditExport(ExportAuditArgs{SessionID: sid, Format: tc.format})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if wantName := "warden-audit-" + sid + "." + tc.format; seen.DefaultFilename != wantName {
				t.Errorf("dialog DefaultFilename = %q, want %q", seen.DefaultFilename, wantName)
			}
			if len(seen.Filters) != 1 || seen.Filters[0].Pattern != "*."+tc.format {
				t.Errorf("dialog filters = %+v, want one for *.%s", seen.Filters, tc.format)
			}
			if got.Path != tc.wantPath {
				t.Fatalf("Path = %q, want %q", got.Path, tc.wantPath)
			}
			if tc.wantPath == "" {
				return
			}
			want, err := a.ExportAudit(ExportAuditArgs{SessionID: sid, Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			body, err := os.ReadFile(got.Path)
			if err != nil {
				t.Fatal(err)
			}
			if string(body) != want.Content || got.Bytes != int64(len(body)) || len(body) == 0 {
				t.Fatalf("file holds %d bytes (reported %d), want the %d-byte export", len(body), got.Bytes, len(want.Content))
			}
			if fi, _ := os.Stat(got.Path); fi.Mode().Perm() != 0o644 {
				t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
			}
		})
	}
	// Neither the saves nor the failures leave a temporary file behind.
	names, err := filepath.Glob(filepath.Join(dir, ".*"))
	if err != nil || len(names) != 0 {
		t.Fatalf("leftover temporary files: %v %v", names, err)
	}
}

func TestSaveAuditExportRefusesBeforeTheDialog(t *testing.T) {
	a, sid := auditedApp(t)
	cases := []struct {
		name    string
		app     *App
		args    ExportAuditArgs
		wantErr string
	}{
		{"unknown format", a, ExportAuditArgs{SessionID: sid, Format: "xml"}, `format "xml" is not jsonl or csv`},
		{"unknown session", a, ExportAuditArgs{SessionID: "nope", Format: "jsonl"}, "nope"},
		{"no runtime", New(Options{}), ExportAuditArgs{SessionID: sid, Format: "jsonl"}, ErrNotConnected.Error()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opened := false
			tc.app.dialogs.saveFile = func(context.Context, wruntime.SaveDialogOptions) (string, error) {
				opened = true
				return "/tmp/x", nil
			}
			_, err := tc.app.SaveAuditExport(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
			if opened {
				t.Fatal("the save dialog opened for a request that could not be exported")
			}
		})
	}
}

func TestPickFolder(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	cases := []struct {
		name        string
		args        PickFolderArgs
		answer      string
		dialogErr   error
		wantTitle   string
		wantDefault string
		want        string
		wantErr     string
	}{
		{name: "chosen folder", args: PickFolderArgs{Title: "Workspace folder", DefaultDirectory: dir}, answer: dir, wantTitle: "Workspace folder", wantDefault: dir, want: dir},
		{name: "cancel", args: PickFolderArgs{Title: "t"}, answer: "", wantTitle: "t", wantDefault: home, want: ""},
		{name: "no title gets one, no default opens at home", args: PickFolderArgs{}, answer: dir + "/./", wantTitle: "Choose a folder", wantDefault: home, want: dir},
		{name: "a half-typed default opens at its nearest folder", args: PickFolderArgs{DefaultDirectory: dir + "/not/yet"}, answer: dir, wantTitle: "Choose a folder", wantDefault: dir, want: dir},
		{name: "a relative default opens at home", args: PickFolderArgs{DefaultDirectory: "proj"}, answer: dir, wantTitle: "Choose a folder", wantDefault: home, want: dir},
		{name: "dialog failure", args: PickFolderArgs{}, dialogErr: errors.New("gtk went away"), wantErr: "folder picker: gtk went away"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{})
			var seen wruntime.OpenDialogOptions
			a.dialogs.openDirectory = func(_ context.Context, o wruntime.OpenDialogOptions) (string, error) {
				seen = o
				return tc.answer, tc.dialogErr
			}
			got, err := a.PickFolder(tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("PickFolder = %q, %v; want %q", got, err, tc.want)
			}
			if seen.Title != tc.wantTitle || seen.DefaultDirectory != tc.wantDefault {
				t.Fatalf("dialog opened with title %q default %q, want %q %q", seen.Title, seen.DefaultDirectory, tc.wantTitle, tc.wantDefault)
			}
		})
	}
}

// Wails answers every file dialog on one channel: a second dialog while one
// is open is refused rather than queued behind it.
func TestOneDialogAtATime(t *testing.T) {
	a := New(Options{})
	opened, release := make(chan struct{}), make(chan struct{})
	a.dialogs.openDirectory = func(context.Context, wruntime.OpenDialogOptions) (string, error) {
		close(opened)
		<-release
		return "/", nil
	}
	first := make(chan error, 1)
	go func() {
		_, err := a.PickFolder(PickFolderArgs{})
		first <- err
	}()
	<-opened
	if _, err := a.PickFolder(PickFolderArgs{}); !errors.Is(err, ErrDialogOpen) {
		t.Fatalf("second PickFolder err = %v, want ErrDialogOpen", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	a.dialogs.openDirectory = func(context.Context, wruntime.OpenDialogOptions) (string, error) { return "", nil }
	if _, err := a.PickFolder(PickFolderArgs{}); err != nil {
		t.Fatalf("a dialog after the first closed: %v", err)
	}
}

// The Wails runtime exits the process on a context it did not make; the
// real dialogs refuse such a context with an error instead.
func TestDialogsWithoutAWindow(t *testing.T) {
	cases := []struct {
		name   string
		attach context.Context
	}{
		{"before Attach", nil},
		{"attached to a plain context", context.Background()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{})
			if tc.attach != nil {
				Attach(tc.attach, a)
			}
			if _, err := a.PickFolder(PickFolderArgs{}); !errors.Is(err, ErrNoWindow) {
				t.Fatalf("PickFolder err = %v, want ErrNoWindow", err)
			}
			if _, err := a.dialogs.saveFile(a.wailsCtx, wruntime.SaveDialogOptions{}); !errors.Is(err, ErrNoWindow) {
				t.Fatalf("saveFile err = %v, want ErrNoWindow", err)
			}
		})
	}
}

func TestExistingDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"relative", "a/b", ""},
		{"existing", dir, dir},
		{"missing tail", filepath.Join(dir, "x", "y"), dir},
		{"a file is not a folder", file, dir},
		{"root", "/", "/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := existingDir(tc.in); got != tc.want {
				t.Fatalf("existingDir(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
