package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools/diff"
)

// FsWriteParams are the arguments of fs.write.
type FsWriteParams struct {
	Path       string `json:"path" desc:"File to write, relative to the workspace or absolute."`
	Content    string `json:"content" desc:"The whole new content of the file."`
	CreateDirs bool   `json:"create_dirs,omitempty" desc:"Create missing parent directories."`
}

//go:embed fs_write.md
var fsWriteDescription string

// FsWrite is the fs.write tool: replace or create a file atomically.
type FsWrite = Typed[FsWriteParams]

// NewFsWrite returns fs.write.
func NewFsWrite() *FsWrite {
	return NewTyped(Spec[FsWriteParams]{Name: "fs.write", Description: fsWriteDescription, Risk: policy.RiskMedium,
		Effects: fsWriteEffects, Invoke: fsWriteInvoke, Preview: fsWritePreview})
}

func fsWriteEffects(p FsWriteParams, env Env) ([]policy.Effect, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return nil, err
	}
	return []policy.Effect{{Kind: policy.EffectWrite, Paths: []string{path}}}, nil
}

// fsWritePreview is the diff of the write against the file's current
// content, for the approval prompt.
func fsWritePreview(p FsWriteParams, env Env) (string, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return "", err
	}
	name := display(env.Workspace, path)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return diff.Unified("/dev/null", "b/"+name, "", p.Content), nil
	case err != nil:
		return "", fmt.Errorf("%s: %w", name, err)
	case isBinary(old, false):
		return fmt.Sprintf("binary file %s (%d bytes) replaced by %d bytes of text\n", name, len(old), len(p.Content)), nil
	}
	if d := diff.Unified("a/"+name, "b/"+name, string(old), p.Content); d != "" {
		return d, nil
	}
	return fmt.Sprintf("%s: content unchanged\n", name), nil
}

func fsWriteInvoke(_ context.Context, p FsWriteParams, env Env) (Result, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	name := display(env.Workspace, path)
	mode := fs.FileMode(0o644)
	created := true
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return ErrorResult(fmt.Sprintf("%s exists and is not a regular file", name)), nil
		}
		mode, created = fi.Mode().Perm(), false
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil {
		if !p.CreateDirs {
			return ErrorResult(fmt.Sprintf("directory %s does not exist (set create_dirs to create it)", display(env.Workspace, dir))), nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return ErrorResult(fmt.Sprintf("create %s: %v", display(env.Workspace, dir), err)), nil
		}
	} else if !fi.IsDir() {
		return ErrorResult(fmt.Sprintf("%s is not a directory", display(env.Workspace, dir))), nil
	}
	if err := writeAtomic(path, []byte(p.Content), mode); err != nil {
		return ErrorResult(fmt.Sprintf("write %s: %v", name, err)), nil
	}
	verb := "replaced"
	if created {
		verb = "created"
	}
	res := TextResult(fmt.Sprintf("%s %s (%d bytes)", verb, name, len(p.Content)))
	res.Structured, _ = json.Marshal(map[string]any{"path": path, "bytes": len(p.Content), "created": created})
	return res, nil
}

// writeAtomic writes a temp file beside path, syncs it and renames it over
// path, so a crash leaves the old file or the new one, never half of one.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".warden-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}
