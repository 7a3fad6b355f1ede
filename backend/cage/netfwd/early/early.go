// Package early starts the caged command of the network forwarder before
// the rest of the binary initialises. The forwarder is the whole warden
// binary re-executed inside the cage (package netfwd); Go initialises every
// package it links before any of them can act, and for warden that is tens
// of milliseconds on every caged call with network (measured by
// bench/cmd/netbench). Waiting for it serially before starting the command
// was most of what a caged small fetch cost over a cage without the proxy.
//
// This package imports only syscall, so Go initialises it right after
// syscall, before os, net and every third-party package. Its init binds the
// cage's proxy address (a listening socket in the cage's network namespace)
// and then:
//   - for a command that only needs the proxy (shell.exec), hands the
//     listening socket to the host over the control socket (MsgProxyListener)
//     and execs the command in place: the host accepts the cage's proxy
//     clients itself, and no forwarder process stays in the cage;
//   - for one that also exposes or detects ports (a monitor), starts the
//     command as a child, and the forwarder (netfwd.Main) takes the bound
//     socket and the running child once the binary is ready.
//
// Connections the command makes meanwhile wait in the socket's listen
// backlog: none is refused, and none can go anywhere else (the cage's
// network namespace has no route out).
//
// Anything this init does not understand (another argument layout, a proxy
// address that is not IPv4, a program it cannot find on PATH) it leaves
// alone, and netfwd.Main does everything as before.
package early

import "syscall"

// Arg is the hidden first argument that makes a binary the cage's network
// forwarder (netfwd.Arg is this).
const Arg = "__warden-netfwd"

// MsgProxyListener is the control message carrying the cage's listening
// proxy socket to the host (netfwd's other messages are in netfwd.go).
const MsgProxyListener = 'P'

// Plan is what the forwarder's command line asks the early start to do.
type Plan struct {
	CtlFD int
	// Proxy is the cage address to bind ("" when network is not admitted).
	Proxy     string
	ProxyIP   [4]byte
	ProxyPort int
	// Ports: ports are exposed or detected, which needs the forwarder.
	Ports bool
	// Argv is the command to start.
	Argv []string
}

// Parse reads the forwarder's command line (os.Args: the binary, Arg, then
// the flags sandbox.egress.prefix writes, "--" and the command). It accepts
// only that layout and reports false for anything else, which then goes to
// netfwd.Main's own flag parsing.
func Parse(args []string) (Plan, bool) {
	pl := Plan{CtlFD: -1}
	if len(args) < 2 || args[1] != Arg {
		return pl, false
	}
	for i := 2; i < len(args); i++ {
		switch args[i] {
		case "--":
			pl.Argv = args[i+1:]
			ok := len(pl.Argv) > 0 && pl.Argv[0] != "" && pl.CtlFD >= 3
			return pl, ok
		case "-detect":
			pl.Ports = true
		case "-ctl-fd", "-proxy", "-expose":
			if i+1 >= len(args) {
				return pl, false
			}
			v := args[i+1]
			i++
			switch args[i-1] {
			case "-ctl-fd":
				n, ok := atoi(v)
				if !ok {
					return pl, false
				}
				pl.CtlFD = n
			case "-proxy":
				ip, port, ok := parseIPv4Port(v)
				if !ok {
					return pl, false
				}
				pl.Proxy, pl.ProxyIP, pl.ProxyPort = v, ip, port
			case "-expose":
				pl.Ports = true
			}
		default:
			return pl, false
		}
	}
	return pl, false
}

// State is what init did, for netfwd.Main.
type State struct {
	// ProxyFD is the bound, listening proxy socket; -1 if none.
	ProxyFD int
	// Pid is the started command; 0 if none.
	Pid int
}

var state = State{ProxyFD: -1}

// Take returns what init did, once: a second call gets nothing, so the
// socket and the child have one owner.
func Take() State {
	s := state
	state = State{ProxyFD: -1}
	return s
}

func init() {
	args, ok := Cmdline()
	if !ok {
		return
	}
	pl, ok := Parse(args)
	if !ok {
		return
	}
	path, ok := lookPath(pl.Argv[0])
	if !ok {
		return
	}
	// The command must not inherit the host's control socket (netfwd.Main
	// would otherwise close it before starting the command).
	syscall.CloseOnExec(pl.CtlFD)
	if pl.Proxy != "" {
		fd, err := listen(pl.ProxyIP, pl.ProxyPort)
		if err != nil {
			return // Main binds it and reports the error
		}
		state.ProxyFD = fd
		if !pl.Ports && sendFD(pl.CtlFD, MsgProxyListener, fd) == nil {
			// Only returns on failure; then Main serves the socket too and
			// reports why the command does not start.
			_ = syscall.Exec(path, pl.Argv, syscall.Environ())
			return
		}
	}
	pid, err := syscall.ForkExec(path, pl.Argv, &syscall.ProcAttr{
		Env:   syscall.Environ(),
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		return // Main starts it and reports the error
	}
	state.Pid = pid
}

// sendFD sends fd to the host with a one-byte message.
func sendFD(ctl int, msg byte, fd int) error {
	for {
		err := syscall.Sendmsg(ctl, []byte{msg}, syscall.UnixRights(fd), nil, 0)
		if err != syscall.EINTR {
			return err
		}
	}
}

// Cmdline reads this process's arguments from /proc: os.Args is set by
// package os, which is not initialised yet. Exported for the other
// package that must run before os (cmd/warden/internal/handover).
func Cmdline() ([]string, bool) {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var data []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			break
		}
		data = append(data, buf[:n]...)
		if len(data) > 1<<20 {
			return nil, false
		}
	}
	return splitNUL(data), true
}

// splitNUL splits /proc/self/cmdline's NUL-terminated strings.
func splitNUL(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == 0 {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}

// lookPath finds name as os/exec would, but only in the plain case: a name
// with a slash is used as it is, one without is looked up in absolute PATH
// entries. A relative PATH entry or no match reports false, and netfwd.Main
// gives os/exec's answer (its refusal of "." included).
func lookPath(name string) (string, bool) {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return name, true
		}
	}
	pathEnv, _ := syscall.Getenv("PATH")
	for _, dir := range splitColon(pathEnv) {
		if dir == "" || dir[0] != '/' {
			return "", false
		}
		p := dir + "/" + name
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFDIR && st.Mode&0o111 != 0 &&
			syscall.Access(p, 1 /* X_OK */) == nil {
			return p, true
		}
	}
	return "", false
}

func splitColon(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// listen binds and listens on ip:port as net.Listen would (SO_REUSEADDR),
// close-on-exec so the command does not hold it.
func listen(ip [4]byte, port int) (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: ip}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	// The kernel caps the backlog at net.core.somaxconn.
	if err := syscall.Listen(fd, 4096); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// parseIPv4Port reads "a.b.c.d:port".
func parseIPv4Port(s string) ([4]byte, int, bool) {
	var ip [4]byte
	colon := -1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			colon = i
			break
		}
	}
	if colon < 0 {
		return ip, 0, false
	}
	port, ok := atoi(s[colon+1:])
	if !ok || port < 1 || port > 65535 {
		return ip, 0, false
	}
	host, part := s[:colon], 0
	for i := 0; i < 4; i++ {
		end := 0
		for end < len(host) && host[end] != '.' {
			end++
		}
		if end == 0 || end > 3 || (end > 1 && host[0] == '0') {
			return ip, 0, false
		}
		n, ok := atoi(host[:end])
		if !ok || n > 255 {
			return ip, 0, false
		}
		ip[part] = byte(n)
		part++
		if i < 3 {
			if end >= len(host) {
				return ip, 0, false
			}
			host = host[end+1:]
		} else if end != len(host) {
			return ip, 0, false
		}
	}
	return ip, port, true
}

// atoi reads a decimal of at most 9 digits.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
