package sandbox

import (
	"strings"
	"testing"
)

func TestParseUnixSockets(t *testing.T) {
	in := `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 20011 /run/systemd/private
0000000000000000: 00000002 00000000 00010000 0001 01 20012 @/tmp/.X11-unix/X0
0000000000000000: 00000003 00000000 00000000 0001 03 20013
0000000000000000: 00000002 00000000 00010000 0001 01 20014 /home/u/.docker/run/docker.sock
0000000000000000: 00000002 00000000 00010000 0001 01 20015 /home/u/.docker/run/docker.sock
`
	got := strings.Join(parseUnixSockets(strings.NewReader(in)), ",")
	if got != "/home/u/.docker/run/docker.sock,/run/systemd/private" {
		t.Fatalf("parseUnixSockets = %s", got)
	}
}

func FuzzParseUnixSockets(f *testing.F) {
	f.Add("Num RefCount\n0: 2 0 10000 1 1 5 /a/b\n")
	f.Add("h\n0: 2 0 10000 1 1 5 @abstract\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range parseUnixSockets(strings.NewReader(s)) {
			if !strings.HasPrefix(p, "/") {
				t.Fatalf("%q is not an absolute path", p)
			}
		}
	})
}

func TestConfigKeys(t *testing.T) {
	out := "core.bare\nfalse\x00core.fsmonitor\ntouch /x\ny\x00remote.origin.url\n/a\x00novalue\x00"
	if got := strings.Join(configKeys([]byte(out)), ","); got != "core.bare,core.fsmonitor,remote.origin.url,novalue" {
		t.Fatalf("configKeys = %s", got)
	}
}

func FuzzConfigKeys(f *testing.F) {
	f.Add([]byte("core.bare\nfalse\x00"))
	f.Add([]byte("a\x00\x00b\nc\nd\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range configKeys(b) {
			if k == "" || strings.ContainsAny(k, "\n\x00") {
				t.Fatalf("bad key %q", k)
			}
		}
	})
}

func TestSeccompProgramShape(t *testing.T) {
	for _, allow := range []bool{false, true} {
		p, err := seccompProgram(allow)
		if err != nil {
			t.Fatal(err)
		}
		if len(p)%8 != 0 || len(p)/8 > 64 {
			t.Fatalf("allowUnix=%v: %d bytes is not a short sock_filter array", allow, len(p))
		}
		// The last instruction allows, so the filter denies only what it names.
		last := p[len(p)-8:]
		if last[0] != bpfRET|bpfK || uint32(last[4])|uint32(last[5])<<8|uint32(last[6])<<16|uint32(last[7])<<24 != seccompRetAllow {
			t.Fatalf("allowUnix=%v: the filter does not end in ALLOW: % x", allow, last)
		}
	}
}

// The filter refuses exactly what it should: a unix socket, io_uring; a
// socketpair (pipes between a build's processes) and an inet socket work.
func TestSeccompInTheCage(t *testing.T) {
	c := newCage(t, Config{})
	ws := gitRepo(t)
	out, code, _ := cageRun(t, c, ws, ww, `python3 - <<'PY'
import socket, errno, ctypes
a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); print("unix allowed")
except PermissionError:
    print("unix refused")
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(425, 8, ctypes.create_string_buffer(120))
print("io_uring refused" if r == -1 and ctypes.get_errno() == errno.EPERM else "io_uring allowed")
PY`)
	if code != 0 || !strings.Contains(out, "unix refused") || !strings.Contains(out, "io_uring refused") {
		t.Fatalf("code=%d out=%s", code, out)
	}
}
