package netfwd

import (
	"bytes"
	"net"
	"os"
	"slices"
	"strconv"
	"time"
)

// MsgListen (then 2 bytes of port, no socket) tells the host a process in
// the cage started listening on a TCP port: the host gives it a loopback
// port of its own, and the forwarder keeps connections waiting for it as
// for a port exposed by name.
const MsgListen = 'l'

// detectEvery is how often the cage's listening sockets are read.
const detectEvery = 250 * time.Millisecond

// ListeningPorts reads /proc/net/tcp or tcp6 text (of the reader's network
// namespace: inside the cage, only the cage's own sockets) and returns the
// ports of the sockets in LISTEN state, each once, in the order they appear.
// Lines it cannot read are skipped.
func ListeningPorts(data []byte) []int {
	var out []int
	for i, line := range bytes.Split(data, []byte("\n")) {
		if i == 0 {
			continue // the header
		}
		f := bytes.Fields(line)
		if len(f) < 4 || string(f[3]) != "0A" { // TCP_LISTEN
			continue
		}
		colon := bytes.LastIndexByte(f[1], ':')
		if colon < 0 {
			continue
		}
		p, err := strconv.ParseUint(string(f[1][colon+1:]), 16, 16)
		if err != nil || p == 0 || slices.Contains(out, int(p)) {
			continue
		}
		out = append(out, int(p))
	}
	return out
}

// detect reports every new listening port of the cage to the host and keeps
// connections waiting for it, until the control socket fails. Ports in skip
// (the proxy's, those exposed by name) are not reported.
func detect(ctl *net.UnixConn, skip []int) {
	seen := map[int]bool{}
	for _, p := range skip {
		seen[p] = true
	}
	for {
		for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			b, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			for _, p := range ListeningPorts(b) {
				if seen[p] {
					continue
				}
				seen[p] = true
				if _, _, err := ctl.WriteMsgUnix([]byte{MsgListen, byte(p >> 8), byte(p)}, nil, nil); err != nil {
					return
				}
				for range Waiters {
					go offer(ctl, p)
				}
			}
		}
		time.Sleep(detectEvery)
	}
}
