package tools

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/policy"
)

const (
	defaultReadLines = 2000
	maxLineChars     = 2000
	maxReadBytes     = 256 << 10
	sniffBytes       = 8 << 10
)

// FsReadParams are the arguments of fs.read.
type FsReadParams struct {
	Path   string `json:"path" desc:"File to read, relative to the workspace or absolute."`
	Offset int    `json:"offset,omitempty" desc:"First line to return, 1-based. Default 1."`
	Limit  int    `json:"limit,omitempty" desc:"How many lines to return. Default 2000."`
}

//go:embed fs_read.md
var fsReadDescription string

// FsRead is the fs.read tool: a text file with line numbers, a page at a time.
type FsRead = Typed[FsReadParams]

// NewFsRead returns fs.read.
func NewFsRead() *FsRead {
	return NewTyped(Spec[FsReadParams]{Name: "fs.read", Description: fsReadDescription, Risk: policy.RiskLow,
		Check: checkRead, Effects: fsReadEffects, Invoke: fsReadInvoke})
}

func checkRead(p *FsReadParams) error {
	if p.Offset < 0 || p.Limit < 0 {
		return errors.New("offset and limit must not be negative")
	}
	return nil
}

func fsReadEffects(p FsReadParams, env Env) ([]policy.Effect, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return nil, err
	}
	return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{path}}}, nil
}

// resolveArg resolves a path argument against the workspace.
func resolveArg(env Env, p string) (string, error) {
	path, err := ResolvePath(env.Workspace, p)
	if err != nil {
		return "", fmt.Errorf("path: %w", err)
	}
	return path, nil
}

func fsReadInvoke(_ context.Context, p FsReadParams, env Env) (Result, error) {
	path, err := resolveArg(env, p.Path)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	name := display(env.Workspace, path)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ErrorResult(fmt.Sprintf("%s does not exist", name)), nil
	case err != nil:
		return ErrorResult(fmt.Sprintf("%s: %v", name, err)), nil
	case fi.IsDir():
		return ErrorResult(fmt.Sprintf("%s is a directory; use fs.list", name)), nil
	case !fi.Mode().IsRegular():
		return ErrorResult(fmt.Sprintf("%s is not a regular file", name)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return ErrorResult(fmt.Sprintf("%s: %v", name, err)), nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffBytes)
	if isBinary(head, fi.Size() > int64(len(head))) {
		return ErrorResult(fmt.Sprintf("%s is a binary file (%d bytes, %s); fs.read shows text only",
			name, fi.Size(), http.DetectContentType(head))), nil
	}
	offset, limit := max(p.Offset, 1), p.Limit
	if limit == 0 {
		limit = defaultReadLines
	}
	var b strings.Builder
	n, shown, last := 0, 0, 0
	more := false
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if !errors.Is(err, io.EOF) {
				return ErrorResult(fmt.Sprintf("%s: %v", name, err)), nil
			}
			break
		}
		n++
		if n < offset {
			continue
		}
		if shown >= limit || b.Len() >= maxReadBytes {
			more = true
			break
		}
		line = strings.TrimRight(line, "\r\n")
		if utf8.RuneCountInString(line) > maxLineChars {
			line = string([]rune(line)[:maxLineChars]) + " … [line truncated]"
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, line)
		shown++
		last = n
	}
	switch {
	case fi.Size() == 0:
		return TextResult(fmt.Sprintf("%s is empty", name)), nil
	case shown == 0:
		return ErrorResult(fmt.Sprintf("%s has %d lines; offset %d is past the end", name, n, offset)), nil
	case more:
		fmt.Fprintf(&b, "[lines %d-%d shown; the file continues: call fs.read again with offset=%d]", offset, last, last+1)
	}
	return TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// isBinary sniffs the head of a file: a NUL byte or invalid UTF-8 (a rune cut
// at the sniff boundary excepted).
func isBinary(head []byte, cut bool) bool {
	if len(head) == 0 {
		return false
	}
	for _, c := range head {
		if c == 0 {
			return true
		}
	}
	if cut {
		for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1]
		}
	}
	return !utf8.Valid(head)
}
