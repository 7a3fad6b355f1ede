package sandbox

import (
	"encoding/binary"
	"errors"
	"runtime"
	"syscall"
)

// The seccomp filter bwrap installs (--seccomp FD) before it runs the
// command. It is a classic BPF program assembled here, so the warden binary
// needs no libseccomp (it links no C library but libc).
//
// It refuses, with EPERM:
//   - socket(AF_UNIX, ...) unless unix sockets are allowed: a unix socket
//     is how a process commands a host daemon (Docker, ssh and gpg agents,
//     D-Bus, systemd) and a read-only mount does not stop connect(). Sockets
//     made before the filter (none: bwrap passes no descriptors) and
//     socketpair() still work, so pipes between a build's processes do.
//   - io_uring_setup/enter/register: io_uring opens sockets and files
//     without the system calls this filter sees.
//   - unshare(2) and clone(2) with CLONE_NEWUSER, and clone3(2) with
//     ENOSYS (its flags sit behind a pointer a filter cannot read; libc
//     then falls back to clone, which is checked): a nested user namespace
//     gives back every capability over a new mount namespace, and is a
//     large kernel attack surface. This is how Docker's and Flatpak's
//     filters do it; bwrap's --disable-userns does the same with an extra
//     namespace and sysctl write on every start.
//   - ioctl TIOCSTI and TIOCLINUX: the cage shares Warden's session (no
//     setsid per call: a new session is a new scheduler autogroup, which
//     cost milliseconds per start on a busy machine), so these two, which
//     push keystrokes into a terminal's input, are refused on any terminal.
//   - every system call of another ABI (x32 on amd64, 32-bit compat): their
//     numbers differ and socketcall() hides its arguments behind a pointer.

const (
	bpfLD   = 0x00
	bpfW    = 0x00
	bpfABS  = 0x20
	bpfJMP  = 0x05
	bpfJEQ  = 0x10
	bpfJGE  = 0x30
	bpfJSET = 0x40
	bpfK    = 0x00
	bpfRET  = 0x06

	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000

	afUnix       = 1
	cloneNewUser = 0x10000000
	tiocsti      = 0x5412
	tioclinux    = 0x541c

	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits of args[0] on a little-endian machine
	offArg1 = 24 // low 32 bits of args[1]: ioctl's request is an int
)

// seccompArch is the audit architecture and the system call numbers of
// the machine Warden runs on.
type seccompArch struct {
	audit                  uint32
	x32                    bool // amd64: refuse the x32 ABI (nr | 0x40000000)
	socket                 uint32
	uringSetup, uringEnter uint32
	uringRegister          uint32
	clone, clone3, unshare uint32
	ioctl                  uint32
}

func nativeArch() (seccompArch, error) {
	switch runtime.GOARCH {
	case "amd64":
		return seccompArch{audit: 0xc000003e, x32: true, socket: 41, uringSetup: 425, uringEnter: 426, uringRegister: 427,
			clone: 56, clone3: 435, unshare: 272, ioctl: 16}, nil
	case "arm64":
		return seccompArch{audit: 0xc00000b7, socket: 198, uringSetup: 425, uringEnter: 426, uringRegister: 427,
			clone: 220, clone3: 435, unshare: 97, ioctl: 29}, nil
	}
	return seccompArch{}, errors.New("sandbox: no seccomp filter for " + runtime.GOARCH)
}

type bpfInsn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

func stmt(code uint16, k uint32) bpfInsn { return bpfInsn{code: code, k: k} }
func jump(code uint16, k uint32, jt, jf uint8) bpfInsn {
	return bpfInsn{code: code, jt: jt, jf: jf, k: k}
}

// seccompProgram is the filter as bwrap reads it: struct sock_filter
// entries in the machine's byte order.
func seccompProgram(allowUnix bool) ([]byte, error) {
	a, err := nativeArch()
	if err != nil {
		return nil, err
	}
	deny := seccompRetErrno | uint32(syscall.EPERM)
	var p []bpfInsn
	// Wrong ABI: deny. The jump offsets count instructions after this one.
	p = append(p,
		stmt(bpfLD|bpfW|bpfABS, offArch),
		jump(bpfJMP|bpfJEQ|bpfK, a.audit, 1, 0),
		stmt(bpfRET|bpfK, deny),
		stmt(bpfLD|bpfW|bpfABS, offNr),
	)
	if a.x32 {
		p = append(p,
			jump(bpfJMP|bpfJGE|bpfK, 0x40000000, 0, 1),
			stmt(bpfRET|bpfK, deny),
		)
	}
	// One block per system call: if the number matches, the block
	// decides and returns; otherwise the jump skips it.
	allow, enosys := stmt(bpfRET|bpfK, seccompRetAllow), stmt(bpfRET|bpfK, seccompRetErrno|uint32(syscall.ENOSYS))
	refuse := stmt(bpfRET|bpfK, deny)
	rule := func(nr uint32, body ...bpfInsn) {
		p = append(p, jump(bpfJMP|bpfJEQ|bpfK, nr, 0, uint8(len(body))))
		p = append(p, body...)
	}
	for _, nr := range []uint32{a.uringSetup, a.uringEnter, a.uringRegister} {
		rule(nr, refuse)
	}
	if !allowUnix {
		rule(a.socket,
			stmt(bpfLD|bpfW|bpfABS, offArg0),
			jump(bpfJMP|bpfJEQ|bpfK, afUnix, 0, 1),
			refuse, allow)
	}
	for _, nr := range []uint32{a.unshare, a.clone} {
		rule(nr,
			stmt(bpfLD|bpfW|bpfABS, offArg0),
			jump(bpfJMP|bpfJSET|bpfK, cloneNewUser, 0, 1),
			refuse, allow)
	}
	rule(a.clone3, enosys)
	rule(a.ioctl,
		stmt(bpfLD|bpfW|bpfABS, offArg1),
		jump(bpfJMP|bpfJEQ|bpfK, tiocsti, 1, 0),
		jump(bpfJMP|bpfJEQ|bpfK, tioclinux, 0, 1),
		refuse, allow)
	p = append(p, stmt(bpfRET|bpfK, seccompRetAllow))
	out := make([]byte, 0, 8*len(p))
	for _, in := range p {
		out = binary.LittleEndian.AppendUint16(out, in.code)
		out = append(out, in.jt, in.jf)
		out = binary.LittleEndian.AppendUint32(out, in.k)
	}
	return out, nil
}
