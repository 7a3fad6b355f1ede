package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strconv"
	"time"
)

// SOCKS5 (RFC 1928), the CONNECT command without authentication: what
// ALL_PROXY=socks5h://... clients speak. Names stay names (socks5h), so the
// lookup happens here, not in the cage.
const (
	socksVersion     = 5
	socksNoAuth      = 0
	socksNoMethod    = 0xff
	socksConnect     = 1
	socksAtypIPv4    = 1
	socksAtypDomain  = 3
	socksAtypIPv6    = 4
	socksOK          = 0
	socksNotAllowed  = 2
	socksHostUnreach = 4
	socksCmdUnsupp   = 7
	socksAtypUnsupp  = 8
)

func (p *Proxy) socks(ctx context.Context, c net.Conn, br *bufio.Reader) {
	ev := &Conn{Proto: "socks5", Started: time.Now()}
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	ok := false
	for _, m := range methods {
		ok = ok || m == socksNoAuth
	}
	if !ok {
		_, _ = c.Write([]byte{socksVersion, socksNoMethod})
		return
	}
	if _, err := c.Write([]byte{socksVersion, socksNoAuth}); err != nil {
		return
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != socksVersion {
		return
	}
	host, err := readSocksAddr(br, req[3])
	if err != nil {
		socksReply(c, socksAtypUnsupp)
		return
	}
	var pb [2]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return
	}
	ev.Host, ev.Port = host, int(binary.BigEndian.Uint16(pb[:]))
	defer p.observe(ev)
	if req[1] != socksConnect {
		ev.Error = "SOCKS command " + strconv.Itoa(int(req[1])) + " is not supported (only CONNECT)"
		socksReply(c, socksCmdUnsupp)
		return
	}
	d, ref := p.admit(ctx, ev)
	if ref != nil {
		code := byte(socksNotAllowed)
		if ref.status != 403 {
			code = socksHostUnreach
		}
		socksReply(c, code)
		return
	}
	up, err := p.dial(ctx, d, ev)
	if err != nil {
		socksReply(c, socksHostUnreach)
		return
	}
	defer up.Close()
	socksReply(c, socksOK)
	var pre []byte
	if n := br.Buffered(); n > 0 {
		pre, _ = br.Peek(n)
	}
	splice(c, up, pre, ev)
}

func readSocksAddr(r io.Reader, atyp byte) (string, error) {
	switch atyp {
	case socksAtypIPv4:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", err
		}
		return netip.AddrFrom4(b).String(), nil
	case socksAtypIPv6:
		var b [16]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", err
		}
		return netip.AddrFrom16(b).String(), nil
	case socksAtypDomain:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return "", err
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		return string(b), nil
	}
	return "", io.ErrUnexpectedEOF
}

func socksReply(c net.Conn, code byte) {
	_, _ = c.Write([]byte{socksVersion, code, 0, socksAtypIPv4, 0, 0, 0, 0, 0, 0})
}
