package orgpolicy

import (
	"io/fs"
	"syscall"
)

// statIno is a file's inode, so a rules file replaced in place with the
// same size and time is still read again.
func statIno(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ino, true
}
