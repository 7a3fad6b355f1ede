package settings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/mcp/mcpport"
)

const (
	defaultLogLines = 200
	maxLogLines     = 2000
	// maxLogBytes bounds what McpLog reads from the end of a log, however
	// long its lines are.
	maxLogBytes = 1 << 20
)

// McpLogArgs name a server and how many of its last log lines to show.
type McpLogArgs struct {
	SessionID string `json:"session_id,omitempty"`
	Server    string `json:"server"`
	Lines     int    `json:"lines,omitempty"`
}

// McpLog is the tail of a server's stderr log.
type McpLog struct {
	Server    string   `json:"server"`
	Path      string   `json:"path"`
	Lines     []string `json:"lines" ts:"string[] | null"`
	Truncated bool     `json:"truncated"`
}

// McpServers reports every configured server without starting any: with a
// session, the servers of its workspace and the trust that applies in it;
// without, the user's servers.
func (s *Service) McpServers(ctx context.Context, a McpServersArgs) ([]mcp.ServerStatus, error) {
	if a.SessionID != "" {
		srv, owner, err := s.opts.Runtime.MCPOf(ctx, a.SessionID)
		if err != nil {
			return nil, err
		}
		if srv == nil {
			return []mcp.ServerStatus{}, nil
		}
		return mcp.StatusOf(ctx, srv, owner), nil
	}
	if s.opts.MCP == nil {
		return []mcp.ServerStatus{}, nil
	}
	return s.opts.MCP.Status(ctx), nil
}

// McpLog returns the last lines of a server's log. Server-written text is
// escaped for display; a log not written yet is empty.
func (s *Service) McpLog(ctx context.Context, a McpLogArgs) (McpLog, error) {
	n := a.Lines
	switch {
	case n < 0:
		return McpLog{}, invalid("lines must not be negative")
	case n == 0:
		n = defaultLogLines
	case n > maxLogLines:
		n = maxLogLines
	}
	servers, _ := s.McpServers(ctx, McpServersArgs{SessionID: a.SessionID})
	for _, st := range servers {
		if st.Name != a.Server {
			continue
		}
		lines, truncated, err := tail(st.LogPath, n, maxLogBytes)
		if err != nil {
			return McpLog{}, err
		}
		for i, l := range lines {
			lines[i] = mcpport.EscapeForDisplay(l)
		}
		return McpLog{Server: st.Name, Path: st.LogPath, Lines: lines, Truncated: truncated}, nil
	}
	return McpLog{}, fmt.Errorf("%w: %q is not configured", ErrUnknownServer, a.Server)
}

// tail reads at most limit bytes from the end of path and returns its last
// n lines; truncated says earlier lines exist.
func tail(path string, n int, limit int64) ([]string, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("MCP log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("MCP log: %w", err)
	}
	size := fi.Size()
	// Read backwards a chunk at a time until n+1 line ends are in hand.
	const chunk = 64 << 10
	var buf []byte
	off := size
	for off > 0 && int64(len(buf)) < limit && bytes.Count(buf, []byte("\n")) <= n {
		step := min(int64(chunk), off, limit-int64(len(buf)))
		off -= step
		part := make([]byte, step)
		if _, err := f.ReadAt(part, off); err != nil && err != io.EOF {
			return nil, false, fmt.Errorf("MCP log: %w", err)
		}
		buf = append(part, buf...)
	}
	text := strings.TrimSuffix(string(buf), "\n")
	if text == "" {
		return []string{}, off > 0, nil
	}
	lines := strings.Split(text, "\n")
	// The first line is partial when the read started mid-file.
	truncated := off > 0
	if off > 0 {
		prev := make([]byte, 1)
		if _, err := f.ReadAt(prev, off-1); err == nil && prev[0] != '\n' {
			lines = lines[1:]
		}
	}
	if len(lines) > n {
		lines, truncated = lines[len(lines)-n:], true
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines, truncated, nil
}
