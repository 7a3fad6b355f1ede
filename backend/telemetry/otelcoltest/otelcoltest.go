// Package otelcoltest builds and runs a real OpenTelemetry Collector for
// tests: the module in testdeps/otelcol (the Collector's own Go modules,
// OTLP receiver and contrib file exporter), compiled from source into a
// cache keyed by that module's go.mod, go.sum and main.go, so a warm run
// does not rebuild. Nothing is downloaded but Go modules.
package otelcoltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// moduleDir finds testdeps/otelcol from this source file.
func moduleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("otelcoltest: no caller information")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "testdeps", "otelcol")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("otelcoltest: the collector module is not at %s: %w", dir, err)
	}
	return filepath.Clean(dir), nil
}

// CacheDir is where built collectors are kept: $WARDEN_OTELCOL_CACHE, else
// the user's cache folder.
func CacheDir() (string, error) {
	if d := os.Getenv("WARDEN_OTELCOL_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "warden-test", "otelcol"), nil
}

// Binary returns the collector, building it first when this module
// version has not been built yet. Concurrent callers (parallel test
// packages) build once: the build holds a lock file.
func Binary() (string, error) {
	dir, err := moduleDir()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", err
		}
		h.Write([]byte(f))
		h.Write(b)
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "otelcol-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	lock, err := os.OpenFile(bin+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("otelcoltest: building the collector in %s: %w\n%s", dir, err, out.String())
	}
	fmt.Fprintf(os.Stderr, "otelcoltest: built the collector in %s (cached at %s)\n", time.Since(start).Round(time.Second), bin)
	return bin, os.Rename(tmp, bin)
}

// Collector is a running collector: OTLP/HTTP in, the file exporter out.
type Collector struct {
	Endpoint string // http://127.0.0.1:PORT, the OTLP/HTTP base URL
	File     string // what the file exporter writes (OTLP JSON lines)
	Log      string // the collector's own log
	port     int
	cmd      *exec.Cmd
	config   string
}

// FreePort picks a loopback port nobody listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// New prepares a collector on port writing into dir; Start runs it.
func New(t testing.TB, dir string, port int) *Collector {
	t.Helper()
	c := &Collector{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), File: filepath.Join(dir, "collector.jsonl"),
		Log: filepath.Join(dir, "collector.log"), port: port, config: filepath.Join(dir, "collector.yaml")}
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    flush_interval: 50ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file]
    metrics:
      receivers: [otlp]
      exporters: [file/metrics]
`, port, c.File)
	cfg = strings.Replace(cfg, "exporters:\n  file:", fmt.Sprintf("exporters:\n  file/metrics:\n    path: %s\n  file:", filepath.Join(dir, "metrics.jsonl")), 1)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// Start runs the collector and waits until it accepts connections.
func (c *Collector) Start(t testing.TB) {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	logf, err := os.OpenFile(c.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(bin, "--config", c.config)
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logf.Close()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.port), 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(c.Log)
	t.Fatalf("the collector did not listen on %d within 60s:\n%s", c.port, b)
}

// Stop ends the collector (the file exporter flushes on SIGTERM).
func (c *Collector) Stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
	c.cmd = nil
}
