package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The watch reads, edits and removes entries while the caged process still
// runs, and that process can swap any folder of the path for a symlink
// between two system calls: a plain os.RemoveAll("ws/d/.bashrc") after d
// became a link to the home folder would delete the user's ~/.bashrc.
// So every such access resolves the path below its writable root with
// openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) and works on descriptors
// from there: a symlink anywhere in the path makes it fail instead.

func openBeneath(root, p string, flags int) (int, error) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
		return -1, fmt.Errorf("sandbox: %s is not below %s", p, root)
	}
	rfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(rfd)
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(rfd, rel, &how)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		return fd, err
	}
}

// readDirBeneath lists the folder p, refusing one reached through a symlink.
func readDirBeneath(root, p string) ([]os.DirEntry, error) {
	fd, err := openBeneath(root, p, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	return f.ReadDir(-1)
}

// lstatBeneath is Lstat of p, refusing a path through a symlink (p itself
// may be one: it is opened with O_PATH|O_NOFOLLOW).
func lstatBeneath(root, p string) (unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := openBeneath(root, filepath.Dir(p), unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return st, err
	}
	defer unix.Close(fd)
	err = unix.Fstatat(fd, filepath.Base(p), &st, unix.AT_SYMLINK_NOFOLLOW)
	return st, err
}

// removeBeneath removes p and everything below it without following a
// symlink at any depth.
func removeBeneath(root, p string) error {
	if p == root {
		return fmt.Errorf("sandbox: refusing to remove the root %s", root)
	}
	fd, err := openBeneath(root, filepath.Dir(p), unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return removeAt(fd, filepath.Base(p), 0)
}

func removeAt(dirfd int, name string, depth int) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	if depth > 256 {
		return fmt.Errorf("sandbox: %s nests too deep to remove", name)
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	for {
		ents, rerr := f.ReadDir(256)
		for _, e := range ents {
			if err := removeAt(fd, e.Name(), depth+1); err != nil {
				f.Close()
				return err
			}
		}
		if rerr == io.EOF || len(ents) == 0 {
			break
		}
		if rerr != nil {
			f.Close()
			return rerr
		}
	}
	f.Close()
	err = unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

// readBeneath and writeBeneath move a small file's content in and out.
func readBeneath(root, p string) ([]byte, error) {
	fd, err := openBeneath(root, p, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4<<20))
}

func writeBeneath(root, p string, data []byte) error {
	fd, err := openBeneath(root, p, unix.O_WRONLY|unix.O_TRUNC)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), p)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
