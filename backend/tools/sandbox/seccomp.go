package sandbox

import (
	"encoding/binary"
	"errors"
	"runtime"
	"syscall"
)

// The seccomp filter bwrap installs (--seccomp FD) before it runs the
// command. It is a classic BPF program assembled here, so the warden binary
// needs no libseccomp (it is built with CGO_ENABLED=0).
//
// It refuses, with EPERM:
//   - socket(AF_UNIX, ...) unless unix sockets are allowed: a unix socket
//     is how a process commands a host daemon (Docker, ssh and gpg agents,
//     D-Bus, systemd) and a read-only mount does not stop connect(). Sockets
//     made before the filter (none: bwrap passes no descriptors) and
//     socketpair() still work, so pipes between a build's processes do.
//   - io_uring_setup/enter/register: io_uring opens sockets and files
//     without the system calls this filter sees.
//   - every system call of another ABI (x32 on amd64, 32-bit compat): their
//     numbers differ and socketcall() hides its arguments behind a pointer.

const (
	bpfLD  = 0x00
	bpfW   = 0x00
	bpfABS = 0x20
	bpfJMP = 0x05
	bpfJEQ = 0x10
	bpfJGE = 0x30
	bpfK   = 0x00
	bpfRET = 0x06

	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000

	afUnix = 1

	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits of args[0] on a little-endian machine
)

// seccompArch is the audit architecture and the system call numbers of
// the machine Warden runs on.
type seccompArch struct {
	audit                  uint32
	x32                    bool // amd64: refuse the x32 ABI (nr | 0x40000000)
	socket                 uint32
	uringSetup, uringEnter uint32
	uringRegister          uint32
}

func nativeArch() (seccompArch, error) {
	switch runtime.GOARCH {
	case "amd64":
		return seccompArch{audit: 0xc000003e, x32: true, socket: 41, uringSetup: 425, uringEnter: 426, uringRegister: 427}, nil
	case "arm64":
		return seccompArch{audit: 0xc00000b7, socket: 198, uringSetup: 425, uringEnter: 426, uringRegister: 427}, nil
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
	for _, nr := range []uint32{a.uringSetup, a.uringEnter, a.uringRegister} {
		p = append(p,
			jump(bpfJMP|bpfJEQ|bpfK, nr, 0, 1),
			stmt(bpfRET|bpfK, deny),
		)
	}
	if !allowUnix {
		p = append(p,
			jump(bpfJMP|bpfJEQ|bpfK, a.socket, 0, 3),
			stmt(bpfLD|bpfW|bpfABS, offArg0),
			jump(bpfJMP|bpfJEQ|bpfK, afUnix, 0, 1),
			stmt(bpfRET|bpfK, deny),
		)
	}
	p = append(p, stmt(bpfRET|bpfK, seccompRetAllow))
	out := make([]byte, 0, 8*len(p))
	for _, in := range p {
		out = binary.LittleEndian.AppendUint16(out, in.code)
		out = append(out, in.jt, in.jf)
		out = binary.LittleEndian.AppendUint32(out, in.k)
	}
	return out, nil
}
