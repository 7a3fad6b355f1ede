//go:build !wardenslim

package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// npmRegistry is a loopback server speaking the npm registry protocol for
// one package (testdata/npm/tiny-pkg): its packument and its tarball, built
// here, on a loopback address of the host: npm inside the cage reaches it
// only through Warden's proxy.
type npmRegistry struct {
	url      string
	hostport string
	requests atomic.Int64
	accepted atomic.Int64
}

func newNPMRegistry(t *testing.T, ip string) *npmRegistry {
	t.Helper()
	tgz := packTarball(t, "testdata/npm/tiny-pkg")
	sha1sum := sha1.Sum(tgz)
	sha512sum := sha512.Sum512(tgz)
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatalf("listen on %s (the loopback range): %v", ip, err)
	}
	r := &npmRegistry{hostport: ln.Addr().String()}
	r.url = "http://" + r.hostport + "/"
	packument := map[string]any{
		"name":      "tiny-pkg",
		"dist-tags": map[string]string{"latest": "1.0.0"},
		"versions": map[string]any{"1.0.0": map[string]any{
			"name": "tiny-pkg", "version": "1.0.0", "main": "index.js",
			"dist": map[string]string{
				"tarball":   r.url + "tiny-pkg/-/tiny-pkg-1.0.0.tgz",
				"shasum":    hex.EncodeToString(sha1sum[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sha512sum[:]),
			},
		}},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/tiny-pkg", func(w http.ResponseWriter, _ *http.Request) {
		r.requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(packument)
	})
	mux.HandleFunc("/tiny-pkg/-/tiny-pkg-1.0.0.tgz", func(w http.ResponseWriter, _ *http.Request) {
		r.requests.Add(1)
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(tgz)
	})
	srv := &http.Server{Handler: mux, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.accepted.Add(1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

// packTarball is `npm pack` of dir: a gzipped tar with every file under
// package/.
func packTarball(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + e.Name(), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestNPMInstallThroughTheProxy(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("this test runs npm inside the cage; install Node.js")
	}
	reg := newNPMRegistry(t, "127.0.0.2")
	db := filepath.Join(t.TempDir(), "warden.db")
	install := fmt.Sprintf("npm install --registry=%s --cache=/tmp/npm-cache --no-audit --no-fund --no-update-notifier --loglevel=error tiny-pkg && node -e 'console.log(require(\"tiny-pkg\"))'", reg.url)
	args := func(ws string, extra ...string) []string {
		return append([]string{"shell.exec", "--workspace", ws, "--db", db, "--approval", "never", "--network",
			"--args", string(mustJSONArgs(t, map[string]any{"command": install, "timeout_ms": 120000}))}, extra...)
	}

	t.Run("not listed: refused, the registry sees nothing", func(t *testing.T) {
		ws := toolWorkspace(t)
		r := runToolCLI(t, args(ws)...)
		if r.code == 0 {
			t.Fatalf("npm install succeeded without --allow-host: %+v", r.out.Result)
		}
		res := resultOf(r)
		if !strings.Contains(res, "network: "+reg.hostport+" refused (private-address)") || !strings.Contains(res, "--allow-host "+reg.hostport) {
			t.Fatalf("the result names the host and how to allow it:\n%s", res)
		}
		if n := reg.accepted.Load(); n != 0 {
			t.Fatalf("the registry saw %d connections", n)
		}
		if toolExists(filepath.Join(ws, "node_modules", "tiny-pkg", "package.json")) {
			t.Fatal("the package was installed")
		}
	})

	// Under the default On request, headless, the listed host is all it
	// takes: the cage's proxy decides the destination, so the command is not
	// asked for (and refused) as a whole first.
	t.Run("on request, listed: installed without a command-level ask", func(t *testing.T) {
		ws := toolWorkspace(t)
		reg.accepted.Store(0)
		r := runToolCLI(t, "shell.exec", "--workspace", ws, "--db", db, "--approval", "on-request", "--network", "--allow-host", reg.hostport,
			"--args", string(mustJSONArgs(t, map[string]any{"command": install, "timeout_ms": 120000})))
		if res := resultOf(r); r.code != 0 || !strings.Contains(res, "tiny-pkg served through warden's proxy") {
			t.Fatalf("exit %d; stderr %s\n%s", r.code, r.stderr, res)
		}
		if reg.accepted.Load() == 0 {
			t.Fatal("the registry saw no connection")
		}
	})

	t.Run("listed with --allow-host: installed, connection audited", func(t *testing.T) {
		ws := toolWorkspace(t)
		r := runToolCLI(t, args(ws, "--allow-host", reg.hostport)...)
		res := resultOf(r)
		if r.code != 0 || !strings.Contains(res, "tiny-pkg served through warden's proxy") {
			t.Fatalf("exit %d; stderr %s\n%s", r.code, r.stderr, res)
		}
		if b, err := os.ReadFile(filepath.Join(ws, "node_modules", "tiny-pkg", "index.js")); err != nil || !strings.Contains(string(b), "served through") {
			t.Fatalf("the package is not in the workspace: %v", err)
		}
		if reg.requests.Load() < 2 {
			t.Fatalf("the registry served %d requests, want the packument and the tarball", reg.requests.Load())
		}
		var out, errb bytes.Buffer
		if code := run(t.Context(), []string{"audit", "export", "--db", db, "--session", r.out.SessionID}, stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 0 {
			t.Fatalf("audit export: %d %s", code, errb.String())
		}
		var conns int
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var line struct {
				Kind string `json:"kind"`
				Data struct {
					Host      string `json:"host"`
					Port      int    `json:"port"`
					Allowed   bool   `json:"allowed"`
					AllowedBy string `json:"allowed_by"`
					BytesDown int64  `json:"bytes_down"`
				} `json:"data"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("export line %q: %v", sc.Text(), err)
			}
			if line.Kind != "network_connection" {
				continue
			}
			conns++
			if line.Data.Host != "127.0.0.2" || !line.Data.Allowed || line.Data.AllowedBy != "network-allow:"+reg.hostport || line.Data.BytesDown == 0 {
				t.Fatalf("connection event %+v", line.Data)
			}
		}
		if conns == 0 {
			t.Fatalf("no network_connection in the audit export:\n%s", out.String())
		}
	})
}

// The stand-in on 127.0.0.1 itself: listing it exactly takes 127.0.0.1 out of
// the cage's NO_PROXY, so npm goes through the proxy to the host's service
// instead of the cage's own loopback.
func TestNPMInstallFromHostLoopback(t *testing.T) {
	reg := newNPMRegistry(t, "127.0.0.1")
	db := filepath.Join(t.TempDir(), "warden.db")
	ws := toolWorkspace(t)
	install := fmt.Sprintf("npm install --registry=%s --cache=/tmp/npm-cache --no-audit --no-fund --no-update-notifier --loglevel=error tiny-pkg", reg.url)
	r := runToolCLI(t, "shell.exec", "--workspace", ws, "--db", db, "--approval", "never", "--network", "--allow-host", reg.hostport,
		"--args", string(mustJSONArgs(t, map[string]any{"command": install, "timeout_ms": 120000})))
	if r.code != 0 || !toolExists(filepath.Join(ws, "node_modules", "tiny-pkg", "package.json")) {
		t.Fatalf("exit %d; stderr %s\n%s", r.code, r.stderr, resultOf(r))
	}
	if reg.requests.Load() < 2 {
		t.Fatalf("the registry served %d requests", reg.requests.Load())
	}
}

func mustJSONArgs(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolWorkspace(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func resultOf(r toolRun) string {
	var b strings.Builder
	for _, c := range r.out.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// `warden run` takes the same flags, through assemble and the runtime's
// gate: an allowed host is reached, and its connection is in the log.
func TestRunAllowHost(t *testing.T) {
	reg := newNPMRegistry(t, "127.0.0.2")
	db := filepath.Join(t.TempDir(), "warden.db")
	for _, tc := range []struct {
		name    string
		extra   []string
		reached bool
	}{
		{"not listed", nil, false},
		{"listed", []string{"--allow-host", reg.hostport}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg.accepted.Store(0)
			var out, errb bytes.Buffer
			argv := append([]string{"run", "--db", db, "--workspace", toolWorkspace(t), "--approval", "never", "--network"}, tc.extra...)
			argv = append(argv, "!curl -sS --max-time 20 http://"+reg.hostport+"/tiny-pkg")
			run(t.Context(), argv, stdio{in: strings.NewReader(""), out: &out, err: &errb})
			got := reg.accepted.Load() > 0
			if got != tc.reached {
				t.Fatalf("registry reached=%v, want %v\nstdout %s\nstderr %s", got, tc.reached, out.String(), errb.String())
			}
			if tc.reached && !strings.Contains(out.String(), "dist-tags") {
				t.Fatalf("the packument is not in the output:\n%s", out.String())
			}
		})
	}
}

func TestAllowHostFlagErrors(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"scheme", "https://registry.npmjs.org", "no scheme"},
		{"bad port", "registry.npmjs.org:99999", "port"},
		{"inner wildcard", "api.*.example.com", "wildcard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"tool", "fs.list"}, {"run"}, {"serve"}} {
				var out, errb bytes.Buffer
				code := run(t.Context(), append(cmd, "--allow-host", tc.value, "!true"), stdio{in: strings.NewReader(""), out: &out, err: &errb})
				if code != 2 || !strings.Contains(errb.String(), tc.want) {
					t.Fatalf("%v: exit %d, stderr %q; want 2 and %q", cmd, code, errb.String(), tc.want)
				}
			}
		})
	}
}
