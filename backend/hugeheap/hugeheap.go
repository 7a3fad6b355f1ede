// Package hugeheap backs the start of the Go heap with transparent huge
// pages, for a short process that would otherwise take one page fault per
// 4 KiB page it touches: the one-shot `warden tool` touches about 1.5 MiB
// of heap in a few milliseconds. On a paravirtualised VM (this project's
// CI: firecracker with PVM) every such fault traps into the host, about
// 11 µs, so the faults alone were some 4 ms of a call's CPU; two collapsed
// 2 MiB pages cost about 0.4 ms each and make the later touches free
// (docs/benchmarks.md, row (a)). On bare metal the trade is about even.
//
// Go's runtime leaves the heap to the system's setting, which is usually
// "madvise", so nothing else gives a short process huge pages. It imports only syscall and unsafe, so
// the slim build's earliest package (cmd/warden/internal/handover) can call
// it before the rest of the binary initialises.
package hugeheap

import (
	"syscall"
	"unsafe"
)

const (
	// chunk is the unit the runtime maps its heap in (pallocChunkBytes,
	// 4 MiB, aligned to its size); the first one holds every allocation
	// of a short process.
	chunk = 4 << 20
	// Linux madvise advice values (include/uapi/asm-generic/mman-common.h).
	madvHugepage = 14
	madvCollapse = 25 // Linux 6.1
)

// first is a heap allocation: its address says where the heap's first
// chunk is.
var first *[64]byte

// Back asks the kernel to back the heap's first chunk with huge pages now:
// MADV_HUGEPAGE, so pages faulted later come whole, then MADV_COLLAPSE on
// each 2 MiB half, so the pages the runtime and the package initialisers
// already touched move into a huge page too. A half nothing touched yet
// has nothing to collapse (EINVAL) and gets its huge page at its first
// fault. An error (a kernel before 6.1, huge pages set to never, no free
// 2 MiB page) leaves the heap as it was and costs nothing more than the
// system call. GODEBUG=disablethp=1, Go's own switch for keeping huge
// pages off the heap, turns it off.
func Back() error {
	if disabled(getenv("GODEBUG")) {
		return nil
	}
	first = new([64]byte)
	at := uintptr(unsafe.Pointer(first))
	base := at &^ (chunk - 1)
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, base, chunk, madvHugepage); e != 0 {
		return e
	}
	for half := base; half < base+chunk; half += chunk / 2 {
		_, _, e := syscall.Syscall(syscall.SYS_MADVISE, half, chunk/2, madvCollapse)
		holdsFirst := half <= at && at < half+chunk/2
		if e != 0 && (holdsFirst || e != syscall.EINVAL) {
			return e
		}
	}
	return nil
}

// getenv is os.Getenv without importing os (see the package comment).
func getenv(key string) string {
	v, _ := syscall.Getenv(key)
	return v
}

// disabled reports whether a GODEBUG value turns huge pages off: its last
// disablethp setting is 1, as the runtime reads it.
func disabled(godebug string) bool {
	const key = "disablethp="
	off := false
	for godebug != "" {
		item := godebug
		godebug = ""
		for i := 0; i < len(item); i++ {
			if item[i] == ',' {
				item, godebug = item[:i], item[i+1:]
				break
			}
		}
		if len(item) >= len(key) && item[:len(key)] == key {
			off = item[len(key):] == "1"
		}
	}
	return off
}
