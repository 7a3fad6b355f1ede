package settings_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/mcp"
	"github.com/warden-dev/warden/backend/settings"
)

func TestMcpServersEmptyIsAList(t *testing.T) {
	r := newRig(t, "")
	got, err := r.g.Settings.McpServers(context.Background(), settings.McpServersArgs{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	if string(raw) != "[]" {
		t.Errorf("McpServers = %s, want []", raw)
	}
	if _, err := r.g.Settings.McpLog(context.Background(), settings.McpLogArgs{Server: "noisy"}); !errors.Is(err, settings.ErrUnknownServer) {
		t.Errorf("log of an unconfigured server: %v", err)
	}
}

// A real server process that writes to stderr and exits: the status says
// it failed and the log holds its lines.
func TestMcpServerStatusAndLog(t *testing.T) {
	r := newRig(t, "mcp.toml")
	ctx := context.Background()
	servers, err := r.g.Settings.McpServers(ctx, settings.McpServersArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 1 || servers[0].Name != "noisy" || servers[0].Command != "sh" || servers[0].LastError == "" {
		t.Fatalf("servers %+v", servers)
	}
	cases := []struct {
		name      string
		args      settings.McpLogArgs
		want      []string
		truncated bool
		wantErr   error
	}{
		{name: "default lines", args: settings.McpLogArgs{Server: "noisy"}},
		{name: "last line only", args: settings.McpLogArgs{Server: "noisy", Lines: 1}, truncated: true},
		{name: "more than the maximum is the maximum", args: settings.McpLogArgs{Server: "noisy", Lines: 1 << 20}},
		{name: "negative lines", args: settings.McpLogArgs{Server: "noisy", Lines: -1}, wantErr: settings.ErrInvalid},
		{name: "unknown server", args: settings.McpLogArgs{Server: "quiet"}, wantErr: settings.ErrUnknownServer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log, err := r.g.Settings.McpLog(ctx, tc.args)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if log.Server != "noisy" || log.Path != servers[0].LogPath || log.Truncated != tc.truncated {
				t.Errorf("log %+v", log)
			}
			text := strings.Join(log.Lines, "\n")
			if !strings.Contains(text, "second line from noisy") {
				t.Errorf("lines %q", log.Lines)
			}
			if tc.args.Lines == 1 && (len(log.Lines) != 1 || strings.Contains(text, "first line")) {
				t.Errorf("one line asked, got %q", log.Lines)
			}
			if tc.args.Lines != 1 && !strings.Contains(text, "first line from noisy") {
				t.Errorf("lines %q", log.Lines)
			}
		})
	}
}

// The npm reference server: McpServers shows it up with its tools, gated
// under their gate names, and its log is readable while it runs.
func TestMcpServersWithServerEverything(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "..", "testdeps", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("server-everything is not installed: run `npm ci --prefix testdeps` (%v)", err)
	}
	path := isolate(t)
	writeConfig(t, path, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\n", bin))
	g, err := assemble.Open(context.Background(), assemble.Options{DBPath: filepath.Join(t.TempDir(), "w.db"),
		MCPListTimeout: 60 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	servers, err := g.Settings.McpServers(context.Background(), settings.McpServersArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 1 || servers[0].State != mcp.StateRunning || len(servers[0].Tools) == 0 {
		t.Fatalf("servers %+v", servers)
	}
	echo := false
	for _, tool := range servers[0].Tools {
		echo = echo || tool.GateName == mcp.ToolName("everything", "echo")
	}
	if !echo {
		t.Errorf("no echo tool in %+v", servers[0].Tools)
	}
	log, err := g.Settings.McpLog(context.Background(), settings.McpLogArgs{Server: "everything"})
	if err != nil || log.Path != servers[0].LogPath || log.Lines == nil {
		t.Errorf("log %+v %v", log, err)
	}
	if text := strings.Join(log.Lines, "\n"); !strings.Contains(text, "starting") || !strings.Contains(text, "STDIO") {
		t.Errorf("log lines %q lack the start marker and the server's own line", log.Lines)
	}
}
