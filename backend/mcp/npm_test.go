package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmBin finds a reference server installed by `npm ci --prefix testdeps`.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	bin := filepath.Join(dir, "testdeps", "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed: run `npm ci --prefix testdeps` at the repository root (%v)", name, err)
	}
	return bin
}

// TestEverythingServer runs @modelcontextprotocol/server-everything over
// stdio and maps each kind of result.
func TestEverythingServer(t *testing.T) {
	ctx := context.Background()
	t.Setenv("WARDEN_TEST_PARENT_SECRET", "must-not-leak")
	m := newTestManager(t, Options{}, ServerConfig{Name: "everything", Command: npmBin(t, "mcp-server-everything"),
		Args: []string{"stdio"}, Env: map[string]string{"GIVEN_TO_SERVER": "yes"}, Source: "test"})
	names := map[string]bool{}
	for _, a := range m.Tools(ctx) {
		names[a.MCPTool()] = true
	}
	for _, want := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content"} {
		if !names[want] {
			t.Fatalf("tool %q not listed; got %v; status %+v", want, names, m.Status(ctx))
		}
	}
	echo := lookup(t, m, "mcp__everything__echo")
	if e := effect(t, echo, `{"message":"hi"}`); e.Trusted || !e.ReadOnlyHint {
		t.Fatalf("echo effect %+v", e)
	}
	if _, err := echo.Effects(json.RawMessage(`{"msg":"hi"}`), tools0()); err == nil || !strings.Contains(err.Error(), "message") {
		t.Fatalf("missing required argument not caught by the schema: %v", err)
	}

	cases := []struct {
		name, tool, args string
		check            func(t *testing.T, text string, r resultView)
	}{
		{"echo", "echo", `{"message":"hello warden"}`, func(t *testing.T, text string, _ resultView) {
			if !strings.Contains(text, "hello warden") {
				t.Fatalf("echo text %q", text)
			}
		}},
		{"add", "get-sum", `{"a":2,"b":40}`, func(t *testing.T, text string, _ resultView) {
			if !strings.Contains(text, "42") {
				t.Fatalf("get-sum text %q", text)
			}
		}},
		{"image", "get-tiny-image", `{}`, func(t *testing.T, _ string, r resultView) {
			if r.images == 0 || !strings.HasPrefix(r.imageMime, "image/") || r.imageBytes < 8 || string(r.imageHead[1:4]) != "PNG" {
				t.Fatalf("no PNG image in the result: %+v", r)
			}
		}},
		{"environment: configured names only, plus the basics", "get-env", `{}`, func(t *testing.T, text string, _ resultView) {
			if !strings.Contains(text, "GIVEN_TO_SERVER") || !strings.Contains(text, "PATH") || strings.Contains(text, "must-not-leak") {
				t.Fatalf("server environment %.500q", text)
			}
		}},
		{"structured", "get-structured-content", `{"location":"Chicago"}`, func(t *testing.T, _ string, r resultView) {
			var v struct{ Temperature *float64 }
			if err := json.Unmarshal(r.structured, &v); err != nil || v.Temperature == nil {
				t.Fatalf("structured content %s: %v", r.structured, err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := invoke(t, lookup(t, m, "mcp-tool:everything/"+tc.tool), tc.args)
			if res.IsError {
				t.Fatalf("error result: %s", resultText(res))
			}
			tc.check(t, resultText(res), view(res))
		})
	}
}

// TestFilesystemServer: a real tool error (isError) from
// @modelcontextprotocol/server-filesystem, and a working read.
func TestFilesystemServer(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "note.txt"), []byte("inside the root"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, Options{}, ServerConfig{Name: "fs", Command: npmBin(t, "mcp-server-filesystem"), Args: []string{root}, Source: "test"})
	if err := m.Start(ctx, "fs"); err != nil {
		t.Fatal(err)
	}
	read := lookup(t, m, "mcp-tool:fs/read_text_file")
	cases := []struct {
		name, path, want string
		isError          bool
	}{
		{"inside the allowed root", filepath.Join(root, "note.txt"), "inside the root", false},
		{"outside the allowed root", "/etc/hostname", "denied", true},
		{"missing file", filepath.Join(root, "nope.txt"), "ENOENT", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"path": tc.path})
			res := invoke(t, read, string(args))
			if res.IsError != tc.isError || !strings.Contains(resultText(res), tc.want) {
				t.Fatalf("IsError %v, text %q; want %v with %q", res.IsError, resultText(res), tc.isError, tc.want)
			}
		})
	}
	if e := effect(t, lookup(t, m, "mcp-tool:fs/write_file"), `{"path":"x","content":"y"}`); e.ReadOnlyHint {
		t.Fatal("write_file reported read-only")
	}
}

// TestStreamableHTTPEverything runs server-everything over streamable HTTP.
func TestStreamableHTTPEverything(t *testing.T) {
	port := freePort(t)
	cmd := exec.Command(npmBin(t, "mcp-server-everything"), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killProcessGroup(cmd); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("server-everything did not start listening")
	}
	m := newTestManager(t, Options{}, ServerConfig{Name: "web", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), Source: "test"})
	res := invoke(t, lookup(t, startAll(t, m), "mcp-tool:web/get-sum"), `{"a":1,"b":2}`)
	if res.IsError || !strings.Contains(resultText(res), "3") {
		t.Fatalf("get-sum over HTTP: %+v", res)
	}
}

func startAll(t *testing.T, m *Manager) *Manager {
	t.Helper()
	if len(m.Tools(context.Background())) == 0 {
		t.Fatalf("no tools; status %+v", m.Status(context.Background()))
	}
	return m
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
