package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools/ignore"
)

const (
	defaultListDepth = 2
	maxListDepth     = 10
	maxListEntries   = 2000
)

// FsListParams are the arguments of fs.list.
type FsListParams struct {
	Path          string `json:"path,omitempty" desc:"Directory to list, relative to the workspace. Default: the workspace."`
	Depth         int    `json:"depth,omitempty" desc:"How many levels to descend (1 = direct entries). Default 2, at most 10."`
	IncludeHidden bool   `json:"include_hidden,omitempty" desc:"Also list names starting with a dot."`
}

//go:embed fs_list.md
var fsListDescription string

// FsList is the fs.list tool: a directory tree, .gitignore respected.
type FsList = Typed[FsListParams]

// NewFsList returns fs.list.
func NewFsList() *FsList { return newFsList(nil) }

// newFsList is fs.list leaving out what the cage hides (Builtins passes
// the cage's list).
func newFsList(secrets []string) *FsList {
	invoke := func(ctx context.Context, p FsListParams, env Env) (Result, error) {
		return fsListInvoke(ctx, p, env, secrets)
	}
	return NewTyped(Spec[FsListParams]{Name: "fs.list", Description: fsListDescription, Risk: policy.RiskLow,
		Check: checkList, Effects: fsListEffects, Invoke: invoke})
}

func checkList(p *FsListParams) error {
	if p.Depth < 0 || p.Depth > maxListDepth {
		return fmt.Errorf("depth must be between 1 and %d", maxListDepth)
	}
	if p.Path == "" {
		p.Path = "."
	}
	return nil
}

func fsListEffects(p FsListParams, env Env) ([]policy.Effect, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return nil, err
	}
	return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{path}}}, nil
}

func fsListInvoke(ctx context.Context, p FsListParams, env Env, secrets []string) (Result, error) {
	root, err := resolveArg(env, p.Path)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	name := display(env.Workspace, root)
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ErrorResult(fmt.Sprintf("%s does not exist", name)), nil
	case err != nil:
		return ErrorResult(fmt.Sprintf("%s: %v", name, err)), nil
	case !fi.IsDir():
		return ErrorResult(fmt.Sprintf("%s is a file; use fs.read", name)), nil
	}
	depth := p.Depth
	if depth == 0 {
		depth = defaultListDepth
	}
	l := &lister{ctx: ctx, hidden: p.IncludeHidden, maxDepth: depth, secrets: secretsBelow(root, secrets), ws: env.Workspace}
	// Paths are matched relative to the workspace, so the .gitignore files
	// of the folders above the listed one apply too.
	stack := ignore.Stack{}
	rel := ""
	if within(env.Workspace, root) && root != env.Workspace {
		rel, _ = filepath.Rel(env.Workspace, root)
		rel = filepath.ToSlash(rel)
		above := ""
		for _, part := range strings.Split(rel, "/") {
			if f := loadIgnore(filepath.Join(env.Workspace, filepath.FromSlash(above)), above); f != nil {
				stack = append(stack, f)
			}
			above = path2(above, part)
		}
	}
	if err := l.walk(root, rel, 1, stack); err != nil {
		return ErrorResult(err.Error()), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s/\n", name)
	for _, e := range l.out {
		b.WriteString(e + "\n")
	}
	if l.truncated {
		fmt.Fprintf(&b, "[stopped after %d entries; list a subfolder or lower depth]\n", maxListEntries)
	}
	return TextResult(strings.TrimRight(b.String(), "\n")), nil
}

type lister struct {
	ctx       context.Context
	hidden    bool
	maxDepth  int
	out       []string
	truncated bool
	secrets   []string // hidden by the cage: left out
	ws        string
}

func (l *lister) walk(dir, rel string, depth int, stack ignore.Stack) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if f := loadIgnore(dir, rel); f != nil {
		stack = append(stack[:len(stack):len(stack)], f)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		n := e.Name()
		if !l.hidden && strings.HasPrefix(n, ".") {
			continue
		}
		if underSecret(filepath.Join(dir, n), l.ws, l.secrets) {
			continue
		}
		child := path2(rel, n)
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.IsDir() {
				isDir = true
			}
		}
		if stack.Ignored(child, isDir) {
			continue
		}
		if len(l.out) >= maxListEntries {
			l.truncated = true
			return nil
		}
		indent := strings.Repeat("  ", depth)
		switch {
		case e.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(filepath.Join(dir, n))
			l.out = append(l.out, fmt.Sprintf("%s%s -> %s", indent, n, target))
			continue // never follow: a link can lead out of the tree
		case isDir:
			l.out = append(l.out, indent+n+"/")
		default:
			size := int64(0)
			if fi, err := e.Info(); err == nil {
				size = fi.Size()
			}
			l.out = append(l.out, fmt.Sprintf("%s%s (%d bytes)", indent, n, size))
		}
		if isDir && depth < l.maxDepth && n != ".git" {
			if err := l.walk(filepath.Join(dir, n), child, depth+1, stack); err != nil {
				return err
			}
		}
	}
	return nil
}

func path2(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

func loadIgnore(dir, rel string) *ignore.File {
	b, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	return ignore.Parse(rel, string(b))
}
