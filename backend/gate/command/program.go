package command

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
)

// maxPlaced is the largest program file placed in the cage as a copy.
const maxPlaced = 16 << 20

// placedRoot is where program copies go inside the cage.
const placedRoot = sandbox.FilesRoot + "/warden-answerer"

// Program is a command line with its program files read: Run is what
// runs inside the cage (files the agent could change replaced by their
// placed copies), Hash what a trust vouches for.
type Program struct {
	Argv  []string
	Run   []string
	Files []sandbox.File
	// Hash is sha256 over each program file's path and content hash.
	Hash string
	// Paths are the host files read, argv order.
	Paths []string
}

// Where says where a program's relative names start and which files must
// run from a copy.
type Where struct {
	// Base is the folder relative names are read from (the workspace for a
	// workspace's entry, the config file's folder for the user's).
	Base string
	// Home expands a leading "~/".
	Home string
	// Copy reports whether a file must run from a copy (the workspace,
	// what the cage hides); the rest run in place.
	Copy func(path string) bool
	// LookPath finds a bare program name; nil is exec.LookPath.
	LookPath func(string) (string, error)
}

// Loader reads programs, remembering the hash of files that run in place
// by their stat, so an interpreter is hashed once.
type Loader struct {
	mu    sync.Mutex
	known map[string]statHash
}

type statHash struct {
	size  int64
	mtime time.Time
	ino   uint64
	hash  string
}

// NewLoader returns a Loader.
func NewLoader() *Loader { return &Loader{known: map[string]statHash{}} }

// Load reads argv's program files: argv[0] (found on PATH when it names
// no folder) and every argument that names an existing regular file.
func (l *Loader) Load(argv []string, w Where) (Program, error) {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return Program{}, errors.New("empty command")
	}
	p := Program{Argv: append([]string(nil), argv...), Run: append([]string(nil), argv...)}
	sum := sha256.New()
	for i, a := range argv {
		path, ok, err := w.file(a, i == 0)
		if err != nil {
			return Program{}, err
		}
		if !ok {
			continue
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return Program{}, fmt.Errorf("program file %s: %w", path, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return Program{}, fmt.Errorf("program file %s: %w", path, err)
		}
		var h string
		if w.Copy != nil && (w.Copy(path) || w.Copy(real)) {
			if fi.Size() > maxPlaced {
				return Program{}, fmt.Errorf("program file %s is larger than %d MB: it cannot run from a checked copy", path, maxPlaced>>20)
			}
			data, err := os.ReadFile(real)
			if err != nil {
				return Program{}, fmt.Errorf("program file %s: %w", path, err)
			}
			h = hashBytes(data)
			dest := fmt.Sprintf("%s/%d-%s", placedRoot, i, safeBase(real))
			p.Files = append(p.Files, sandbox.File{Path: dest, Data: data, Exec: i == 0})
			p.Run[i] = dest
		} else {
			if h, err = l.hashInPlace(real, fi); err != nil {
				return Program{}, fmt.Errorf("program file %s: %w", path, err)
			}
			if i == 0 {
				p.Run[0] = path
			}
		}
		p.Paths = append(p.Paths, path)
		fmt.Fprintf(sum, "%d\x00%s\x00%s\n", i, path, h)
	}
	if len(p.Paths) == 0 || p.Paths[0] == "" {
		return Program{}, fmt.Errorf("program %q not found", argv[0])
	}
	p.Hash = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	return p, nil
}

// file resolves one argument to a regular file, if it names one; the
// program (first) must.
func (w Where) file(a string, program bool) (string, bool, error) {
	if a == "" || strings.HasPrefix(a, "-") && !program {
		return "", false, nil
	}
	p := a
	switch {
	case strings.HasPrefix(a, "~/") && w.Home != "":
		p = filepath.Join(w.Home, a[2:])
	case program && !strings.Contains(a, "/"):
		look := w.LookPath
		if look == nil {
			look = exec.LookPath
		}
		found, err := look(a)
		if err != nil {
			return "", false, fmt.Errorf("program %q is not on PATH", a)
		}
		p = found
	case !filepath.IsAbs(a):
		if !program && !strings.Contains(a, "/") && !strings.Contains(a, ".") {
			return "", false, nil // a word, not a file name
		}
		p = filepath.Join(w.Base, a)
	}
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", false, err
		}
		p = abs
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		if program {
			if err == nil {
				err = errors.New("not a regular file")
			}
			return "", false, fmt.Errorf("program %s: %w", p, err)
		}
		return "", false, nil
	}
	return p, true, nil
}

func (l *Loader) hashInPlace(path string, fi os.FileInfo) (string, error) {
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	l.mu.Lock()
	k, ok := l.known[path]
	l.mu.Unlock()
	if ok && k.size == fi.Size() && k.mtime.Equal(fi.ModTime()) && k.ino == ino {
		return k.hash, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := f.WriteTo(h); err != nil {
		return "", err
	}
	sum := "sha256:" + hex.EncodeToString(h.Sum(nil))
	l.mu.Lock()
	l.known[path] = statHash{size: fi.Size(), mtime: fi.ModTime(), ino: ino, hash: sum}
	l.mu.Unlock()
	return sum, nil
}

func hashBytes(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// safeBase is a file's base name fit for a path inside the cage.
func safeBase(p string) string {
	b := filepath.Base(p)
	var out strings.Builder
	for _, r := range b {
		if r == '/' || r < 0x20 || r == 0x7f {
			r = '_'
		}
		out.WriteRune(r)
	}
	if out.Len() == 0 {
		return "program"
	}
	return out.String()
}
