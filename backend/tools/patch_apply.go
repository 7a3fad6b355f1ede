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
	"sort"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools/patch"
)

// PatchApplyParams are the arguments of patch.apply.
type PatchApplyParams struct {
	Patch string `json:"patch" desc:"A unified diff (git diff format works): one or more files, additions, deletions and renames."`
	// secs is Patch parsed, once per call (checkPatch).
	secs []patch.File
}

//go:embed patch_apply.md
var patchApplyDescription string

// PatchApply is the patch.apply tool: all files of a diff or none.
type PatchApply = Typed[PatchApplyParams]

// NewPatchApply returns patch.apply.
func NewPatchApply() *PatchApply {
	return NewTyped(Spec[PatchApplyParams]{Name: "patch.apply", Description: patchApplyDescription, Risk: policy.RiskMedium,
		Check: checkPatch, Effects: patchApplyEffects, Invoke: patchApplyInvoke,
		// The patch is already the diff a human reviews.
		Preview: func(p PatchApplyParams, _ Env) (string, error) { return p.Patch, nil }})
}

// checkPatch parses the patch: its sections are part of the decoded
// arguments.
func checkPatch(p *PatchApplyParams) error {
	secs, err := patch.Parse(p.Patch)
	if err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	p.secs = secs
	return nil
}

// fileChange is one section of the patch with its paths resolved.
type fileChange struct {
	sec      patch.File
	old, new string // resolved; "" where the side is /dev/null
}

// resolvePatch resolves the paths of the patch's sections.
func resolvePatch(p PatchApplyParams, env Env) ([]fileChange, error) {
	var err error
	out := make([]fileChange, 0, len(p.secs))
	for _, s := range p.secs {
		fc := fileChange{sec: s}
		if s.OldPath != "" {
			if fc.old, err = ResolvePath(env.Workspace, s.OldPath); err != nil {
				return nil, fmt.Errorf("%s: %w", s.OldPath, err)
			}
		}
		if s.NewPath != "" {
			if fc.new, err = ResolvePath(env.Workspace, s.NewPath); err != nil {
				return nil, fmt.Errorf("%s: %w", s.NewPath, err)
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// Effects lists every path the patch touches as a write, and the deleted
// ones again as destructive: a rename keeps the content, a delete does not.
func patchApplyEffects(p PatchApplyParams, env Env) ([]policy.Effect, error) {
	changes, err := resolvePatch(p, env)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var touched, deleted []string
	for _, c := range changes {
		for _, p := range []string{c.old, c.new} {
			if p != "" && !seen[p] {
				seen[p] = true
				touched = append(touched, p)
			}
		}
		if c.sec.Op == patch.OpDelete {
			deleted = append(deleted, c.old)
		}
	}
	effects := []policy.Effect{{Kind: policy.EffectWrite, Paths: touched}}
	if len(deleted) > 0 {
		effects = append(effects, policy.Effect{Kind: policy.EffectDestructive, Paths: deleted,
			Why: fmt.Sprintf("deletes %d file(s)", len(deleted))})
	}
	return effects, nil
}

// fileState is the planned content of one path.
type fileState struct {
	exists bool
	data   string
	mode   fs.FileMode
}

func patchApplyInvoke(ctx context.Context, p PatchApplyParams, env Env) (Result, error) {
	changes, err := resolvePatch(p, env)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	// Plan every file in memory first; the disk is touched only when all
	// hunks of all files applied.
	view := map[string]*fileState{}
	orig := map[string]*fileState{}
	load := func(p string) (*fileState, error) {
		if st, ok := view[p]; ok {
			return st, nil
		}
		st := &fileState{mode: 0o644}
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s is not a regular file", display(env.Workspace, p))
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			st = &fileState{exists: true, data: string(b), mode: fi.Mode().Perm()}
		}
		cp := *st
		orig[p], view[p] = &cp, st
		return st, nil
	}
	var report []string
	for _, c := range changes {
		line, err := plan(c, load, env)
		if err != nil {
			return ErrorResult("patch not applied, no file changed: " + err.Error()), nil
		}
		report = append(report, line)
	}
	if err := ctx.Err(); err != nil {
		return ErrorResult("patch not applied: " + err.Error()), nil
	}
	if err := commit(view, orig); err != nil {
		return ErrorResult("patch not applied, files restored: " + err.Error()), nil
	}
	res := TextResult("patch applied:\n" + strings.Join(report, "\n"))
	res.Structured, _ = json.Marshal(map[string]any{"files": report})
	return res, nil
}

func plan(c fileChange, load func(string) (*fileState, error), env Env) (string, error) {
	s := c.sec
	switch s.Op {
	case patch.OpAdd:
		st, err := load(c.new)
		if err != nil {
			return "", err
		}
		if st.exists {
			return "", fmt.Errorf("%s: already exists", s.NewPath)
		}
		data, err := patch.Apply("", s.Hunks)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.NewPath, err)
		}
		st.exists, st.data = true, data
		return fmt.Sprintf("added %s%s", s.NewPath, counts(s.Hunks)), nil
	case patch.OpDelete:
		st, err := load(c.old)
		if err != nil {
			return "", err
		}
		if !st.exists {
			return "", fmt.Errorf("%s: does not exist", s.OldPath)
		}
		if len(s.Hunks) > 0 {
			rest, err := patch.Apply(st.data, s.Hunks)
			if err != nil || rest != "" {
				return "", fmt.Errorf("%s: its content differs from the deletion in the patch", s.OldPath)
			}
		}
		st.exists, st.data = false, ""
		return fmt.Sprintf("deleted %s", s.OldPath), nil
	default: // modify, rename
		src, err := load(c.old)
		if err != nil {
			return "", err
		}
		if !src.exists {
			return "", fmt.Errorf("%s: does not exist", s.OldPath)
		}
		data, err := patch.Apply(src.data, s.Hunks)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.OldPath, err)
		}
		if c.new == c.old {
			src.data = data
			return fmt.Sprintf("modified %s%s", s.NewPath, counts(s.Hunks)), nil
		}
		dst, err := load(c.new)
		if err != nil {
			return "", err
		}
		if dst.exists {
			return "", fmt.Errorf("%s: rename target already exists", s.NewPath)
		}
		dst.exists, dst.data, dst.mode = true, data, src.mode
		src.exists, src.data = false, ""
		return fmt.Sprintf("renamed %s -> %s%s", s.OldPath, s.NewPath, counts(s.Hunks)), nil
	}
}

func counts(hs []patch.Hunk) string {
	add, del := 0, 0
	for _, h := range hs {
		for _, l := range h.Lines {
			switch l.Kind {
			case '+':
				add++
			case '-':
				del++
			}
		}
	}
	if add+del == 0 {
		return ""
	}
	return fmt.Sprintf(" (+%d -%d)", add, del)
}

// commit writes the planned states: new contents first (each atomically),
// deletions last. On any failure it puts back what it had already changed.
func commit(view, orig map[string]*fileState) error {
	paths := make([]string, 0, len(view))
	for p := range view {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var done []string
	var madeDirs []string
	rollback := func() {
		for _, p := range done {
			o := orig[p]
			if o.exists {
				_ = writeAtomic(p, []byte(o.data), o.mode)
			} else {
				_ = os.Remove(p)
			}
		}
		for i := len(madeDirs) - 1; i >= 0; i-- {
			_ = os.Remove(madeDirs[i])
		}
	}
	for _, pass := range []bool{true, false} { // writes, then deletions
		for _, p := range paths {
			st, o := view[p], orig[p]
			if st.exists != pass || (st.exists == o.exists && st.data == o.data) {
				continue
			}
			var err error
			if st.exists {
				madeDirs = append(madeDirs, missingDirs(filepath.Dir(p))...)
				if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
					err = writeAtomic(p, []byte(st.data), st.mode)
				}
			} else {
				err = os.Remove(p)
			}
			if err != nil {
				rollback()
				return err
			}
			done = append(done, p)
		}
	}
	return nil
}

// missingDirs lists the folders MkdirAll(dir) would create, outermost first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}
