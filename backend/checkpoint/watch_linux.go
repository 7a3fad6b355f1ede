//go:build linux

package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// watcher is one inotify instance watching the tracked folders of a
// workspace. It is read only when a snapshot drains it (non-blocking), so
// everything a finished call did is already queued by the kernel: no
// goroutine, no race between the call and the snapshot.
type watcher struct {
	fd     int
	root   string
	byWD   map[int32]string // watch → folder (relative, "" the root)
	byPath map[string]int32
	buf    []byte
}

// errWatchLimit: the user's inotify watch limit is reached.
var errWatchLimit = errors.New("the inotify watch limit (fs.inotify.max_user_watches) is reached")

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF |
	unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

func newWatcher(root string) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &watcher{fd: fd, root: root, byWD: map[int32]string{}, byPath: map[string]int32{}, buf: make([]byte, 64<<10)}, nil
}

func (w *watcher) close() {
	if w != nil && w.fd >= 0 {
		_ = unix.Close(w.fd)
		w.fd = -1
	}
}

func (w *watcher) watched(rel string) bool { _, ok := w.byPath[rel]; return ok }

// add watches one folder.
func (w *watcher) add(rel string) error {
	wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(rel)), watchMask)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return errWatchLimit
		}
		return fmt.Errorf("inotify: watch %s: %w", rel, err)
	}
	if old, ok := w.byWD[int32(wd)]; ok && old != rel {
		delete(w.byPath, old) // the same folder, moved
	}
	w.byWD[int32(wd)] = rel
	w.byPath[rel] = int32(wd)
	return nil
}

// remove stops watching rel and every folder under it.
func (w *watcher) remove(rel string) {
	for p, wd := range w.byPath {
		if p == rel || rel == "" || strings.HasPrefix(p, rel+"/") {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.byPath, p)
			delete(w.byWD, wd)
		}
	}
}

// drain reads every queued event into dirty (paths relative to the root).
// lost reports a queue overflow or an event on the root itself (moved or
// deleted): the caller must scan.
func (w *watcher) drain(dirty map[string]struct{}) (lost bool, err error) {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) {
				return lost, nil
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return true, fmt.Errorf("inotify: read: %w", err)
		}
		if n <= 0 {
			return true, fmt.Errorf("inotify: read returned %d", n)
		}
		parseEvents(w.buf[:n], func(wd int32, mask uint32, name []byte) {
			if mask&unix.IN_Q_OVERFLOW != 0 {
				lost = true
				return
			}
			dir, ok := w.byWD[wd]
			if !ok {
				return // a watch already removed
			}
			if mask&unix.IN_IGNORED != 0 {
				delete(w.byWD, wd)
				if w.byPath[dir] == wd {
					delete(w.byPath, dir)
				}
				dirty[dir] = struct{}{}
				return
			}
			if len(name) == 0 {
				if dir == "" && mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
					lost = true
				}
				dirty[dir] = struct{}{}
				return
			}
			dirty[joinRel(dir, string(name))] = struct{}{}
		})
	}
}

// parseEvents reads the kernel's inotify records: wd, mask, cookie, len,
// then len bytes of name padded with NULs. A record cut short ends it.
func parseEvents(b []byte, fn func(wd int32, mask uint32, name []byte)) {
	for off := 0; off+unix.SizeofInotifyEvent <= len(b); {
		wd := int32(binary.NativeEndian.Uint32(b[off:]))
		mask := binary.NativeEndian.Uint32(b[off+4:])
		size := int(binary.NativeEndian.Uint32(b[off+12:]))
		start := off + unix.SizeofInotifyEvent
		if size < 0 || size > len(b)-start {
			return
		}
		name := b[start : start+size]
		off = start + size
		if i := indexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		fn(wd, mask, name)
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// Remote and user-space file systems do not report changes made by other
// machines or by the server: a workspace on one is always scanned.
var remoteFS = map[int64]string{
	0x6969:     "NFS",
	0x65735546: "FUSE",
	0x01021997: "9p",
	0xFF534D42: "CIFS",
	0xFE534D42: "SMB2",
	0x517B:     "SMB",
	0x00C36400: "Ceph",
	0x5346414F: "AFS",
	0x013111A8: "IBRIX",
	0x47504653: "GPFS",
	0x0BD00BD0: "Lustre",
}

// remoteKind names the remote file system root is on, or "".
func remoteKind(root string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(root, &st); err != nil {
		return "unknown (statfs failed)"
	}
	return remoteFS[int64(st.Type)]
}
