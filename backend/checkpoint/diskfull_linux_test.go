package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A snapshot store on a full disk fails that snapshot only: the call runs
// and its result stands, its change set says why there is no checkpoint,
// and once there is room again the next call is covered.
func TestDiskFullFailsOnlyTheSnapshot(t *testing.T) {
	w := newWorld(t)
	// The store on a 256 KiB tmpfs: a real ENOSPC from the kernel.
	if err := syscall.Mount("tmpfs", filepath.Dir(w.root), "tmpfs", 0, "size=256k,mode=0700"); err != nil {
		t.Fatalf("this test mounts a small tmpfs to fill a disk for real and needs root (CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(filepath.Dir(w.root), syscall.MNT_DETACH) })
	writeTree(t, w.ws, map[string]string{"small.txt": "s\n"})
	w.call(t, "fs.write", map[string]string{"path": "a.txt", "content": "a\n"}, nil)

	// Random bytes do not compress: the blob cannot fit.
	big := make([]byte, 1<<20)
	f, err := os.Open("/dev/urandom")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Read(big)
	f.Close()
	out := w.call(t, "fs.write", map[string]any{"path": "big.bin", "content": string(big)}, nil)
	if out.Result.IsError {
		t.Fatalf("the call failed with the disk: %s", resultText(out.Result))
	}
	if st, err := os.Stat(filepath.Join(w.ws, "big.bin")); err != nil || st.Size() == 0 {
		t.Fatalf("the call did not write: %v", err)
	}
	c := w.change(t, out.CallID)
	if !strings.Contains(c.Error, "without a checkpoint") {
		t.Fatalf("change set of a call on a full disk: %+v", c.WorkspaceChanged)
	}
	if err := os.Remove(filepath.Join(w.ws, "big.bin")); err != nil {
		t.Fatal(err)
	}
	next := w.call(t, "fs.write", map[string]string{"path": "b.txt", "content": "b\n"}, nil)
	if c := w.change(t, next.CallID); c.Error != "" || len(c.Files) != 1 || c.Files[0].Path != "b.txt" {
		t.Fatalf("after room was made: %+v", c.WorkspaceChanged)
	}
}
