package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File is content placed read-only inside the cage at Path, a path under
// /run (the cage's private tmpfs): a caged process runs exactly these
// bytes, whatever happens to the file they were read from meanwhile. The
// answerers (backend/gate/command) run their program this way, as the
// bytes whose hash the user trusted.
type File struct {
	Path string
	Data []byte
	// Exec makes it executable (mode 0555; else 0444).
	Exec bool
}

// FilesRoot is where Files may be placed.
const FilesRoot = "/run"

// placeFiles binds each file's content at its path, read-only. The content
// goes through an unlinked temporary file, so any size works.
func (b *argBuilder) placeFiles(files []File) error {
	for _, f := range files {
		p := filepath.Clean(f.Path)
		if p != f.Path || !strings.HasPrefix(p, FilesRoot+"/") {
			return fmt.Errorf("sandbox: file %q is not a clean path under %s", f.Path, FilesRoot)
		}
		tmp, err := os.CreateTemp("", "warden-cage-file-")
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		_ = os.Remove(tmp.Name()) // the open descriptor keeps it
		if _, err := tmp.Write(f.Data); err != nil {
			tmp.Close()
			return fmt.Errorf("sandbox: %w", err)
		}
		if _, err := tmp.Seek(0, 0); err != nil {
			tmp.Close()
			return fmt.Errorf("sandbox: %w", err)
		}
		mode := "0444"
		if f.Exec {
			mode = "0555"
		}
		b.args = append(b.args, "--perms", mode, "--ro-bind-data", strconv.Itoa(3+len(b.files)), p)
		b.files = append(b.files, tmp)
	}
	return nil
}
