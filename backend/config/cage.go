package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// CageSettings are the [sandbox] keys that shape the OS cage. Only the
// user's file sets them: a workspace file cannot (its [sandbox] is ignored),
// so a repository cannot unhide a secret or open a socket.
//
//	[sandbox]
//	deny_read = ["~/work/secrets", "/srv/keys"]   # hidden besides the defaults
//	allow_unix_sockets = ["~/.ssh/agent.sock"]     # reachable from the cage
//	max_processes = 4096                           # per call; -1: no cap
//	tmp_size = "2G"                                # private /tmp; "-1": no cap
//	max_file_size = "8G"                           # any one file; "-1": no cap
type CageSettings struct {
	DenyRead         []string
	AllowUnixSockets []string
	// Zero means the cage's default, negative no cap.
	MaxProcesses int64
	TmpBytes     int64
	FileBytes    int64
}

func (c *CageSettings) apply(s *sandboxSection, path string) error {
	for _, p := range s.DenyRead {
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") {
			return fmt.Errorf("config: %s: sandbox.deny_read %q must be absolute or start with ~/", path, p)
		}
	}
	for _, p := range s.AllowUnixSockets {
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") {
			return fmt.Errorf("config: %s: sandbox.allow_unix_sockets %q must be absolute or start with ~/", path, p)
		}
	}
	c.DenyRead = append(c.DenyRead, s.DenyRead...)
	c.AllowUnixSockets = append(c.AllowUnixSockets, s.AllowUnixSockets...)
	if s.MaxProcesses != nil {
		if *s.MaxProcesses == 0 {
			return fmt.Errorf("config: %s: sandbox.max_processes must be positive (or -1 for no cap)", path)
		}
		c.MaxProcesses = *s.MaxProcesses
	}
	for _, sz := range []struct {
		key string
		v   *string
		dst *int64
	}{{"tmp_size", s.TmpSize, &c.TmpBytes}, {"max_file_size", s.MaxFileSize, &c.FileBytes}} {
		if sz.v == nil {
			continue
		}
		n, err := ParseSize(*sz.v)
		if err != nil {
			return fmt.Errorf("config: %s: sandbox.%s: %w", path, sz.key, err)
		}
		*sz.dst = n
	}
	return nil
}

// ParseSize reads a byte count: a plain number, or one with a K, M, G or T
// suffix (powers of 1024, an optional trailing B or iB), or -1 for "no cap".
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	if t == "-1" {
		return -1, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 512M, 2G, or -1 for no cap)", s)
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}
