package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/warden-dev/warden/backend/api"
)

// ErrNoWindow is returned when a native dialog is asked for outside the
// desktop window (before Attach, or in a process Wails did not start).
var ErrNoWindow = errors.New("no desktop window to open a dialog in")

// ErrDialogOpen is returned while another native dialog is still open: Wails
// hands every file dialog's answer back on one shared channel, so two at once
// could swap their answers.
var ErrDialogOpen = errors.New("another dialog is already open")

// SavedFile is where SaveAuditExport wrote (api.SavedFile).
type SavedFile = api.SavedFile

// PickFolderArgs configures the folder picker (api.PickFolderArgs).
type PickFolderArgs = api.PickFolderArgs

// dialogs opens the window's native dialogs. New sets the Wails ones; tests
// answer in their place, so the write path runs without a window.
type dialogs struct {
	saveFile      func(ctx context.Context, o wruntime.SaveDialogOptions) (string, error)
	openDirectory func(ctx context.Context, o wruntime.OpenDialogOptions) (string, error)
}

func wailsDialogs() dialogs {
	return dialogs{
		saveFile: func(ctx context.Context, o wruntime.SaveDialogOptions) (string, error) {
			if !hasWindow(ctx) {
				return "", ErrNoWindow
			}
			return wruntime.SaveFileDialog(ctx, o)
		},
		openDirectory: func(ctx context.Context, o wruntime.OpenDialogOptions) (string, error) {
			if !hasWindow(ctx) {
				return "", ErrNoWindow
			}
			return wruntime.OpenDirectoryDialog(ctx, o)
		},
	}
}

// hasWindow reports whether ctx is the one Wails gave OnStartup. The Wails
// runtime calls log.Fatalf on any other context, which would end the whole
// app over a button press; "frontend" is the key it looks the window up by.
func hasWindow(ctx context.Context) bool {
	return ctx != nil && ctx.Value("frontend") != nil
}

var exportFilters = map[string]wruntime.FileFilter{
	"jsonl": {DisplayName: "JSON lines (*.jsonl)", Pattern: "*.jsonl"},
	"csv":   {DisplayName: "CSV (*.csv)", Pattern: "*.csv"},
}

// SaveAuditExport renders a session's audit and writes it where the human
// chooses in the native save dialog. The path comes only from that dialog,
// never from the caller, so the page cannot make the app write anywhere.
func (a *App) SaveAuditExport(args ExportAuditArgs) (SavedFile, error) {
	// Render first: an unknown session or format fails without a dialog.
	exp, err := api.ExportAudit.Call(a.ctx(), a.services(), args)
	if err != nil {
		return SavedFile{}, err
	}
	opts := wruntime.SaveDialogOptions{
		Title:                "Export audit trail",
		DefaultFilename:      exp.Filename,
		DefaultDirectory:     existingDir(homeDir()),
		CanCreateDirectories: true,
	}
	if f, ok := exportFilters[args.Format]; ok {
		opts.Filters = []wruntime.FileFilter{f}
	}
	path, err := a.withDialog(func(ctx context.Context) (string, error) { return a.dialogs.saveFile(ctx, opts) })
	if err != nil {
		return SavedFile{}, fmt.Errorf("save dialog: %w", err)
	}
	if path == "" {
		return SavedFile{}, nil
	}
	if !filepath.IsAbs(path) {
		return SavedFile{}, fmt.Errorf("save audit export: the dialog answered a relative path %q", path)
	}
	path = filepath.Clean(path)
	if err := writeAtomic(path, []byte(exp.Content)); err != nil {
		return SavedFile{}, fmt.Errorf("save audit export to %s: %w", path, err)
	}
	return SavedFile{Path: path, Bytes: int64(len(exp.Content))}, nil
}

// PickFolder asks the human for a folder in the native picker. It returns ""
// when the picker is cancelled.
func (a *App) PickFolder(args PickFolderArgs) (string, error) {
	title := strings.TrimSpace(args.Title)
	if title == "" {
		title = "Choose a folder"
	}
	// GTK opens a folder picker without a folder on its Recent list, where
	// a typed path cannot be accepted; start at home instead.
	start := existingDir(strings.TrimSpace(args.DefaultDirectory))
	if start == "" {
		start = existingDir(homeDir())
	}
	opts := wruntime.OpenDialogOptions{
		Title:                title,
		DefaultDirectory:     start,
		CanCreateDirectories: true,
	}
	path, err := a.withDialog(func(ctx context.Context) (string, error) { return a.dialogs.openDirectory(ctx, opts) })
	if err != nil {
		return "", fmt.Errorf("folder picker: %w", err)
	}
	if path == "" {
		return "", nil
	}
	return filepath.Clean(path), nil
}

// withDialog runs one dialog at a time.
func (a *App) withDialog(open func(ctx context.Context) (string, error)) (string, error) {
	if !a.dialogMu.TryLock() {
		return "", ErrDialogOpen
	}
	defer a.dialogMu.Unlock()
	return open(a.wailsCtx)
}

// existingDir returns the nearest existing folder at or above p, or "" when
// p is empty or relative. Wails refuses a default folder that does not
// exist, and a half-typed path should still open the picker near it.
func existingDir(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	for p = filepath.Clean(p); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		if p == filepath.Dir(p) {
			return ""
		}
	}
}

func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return h
}

// writeAtomic writes body to path through a temporary file in the same
// folder and a rename, so the chosen file is either the old one or the whole
// export, never a half-written one.
func writeAtomic(path string, body []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("it is a folder")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; an export is an ordinary document.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}
