//go:build !wardenslim

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// plantPage writes a built frontend whose page says marker.
func plantPage(t *testing.T, dir, marker string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>"+marker+"</title>"+marker), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// served starts `warden serve` with args and returns the base URL and a
// function that ends it and returns its exit status and stderr; or, when
// it exits before printing a URL, "" with the status.
func served(t *testing.T, args ...string) (base string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	errb := &safeWriter{b: &strings.Builder{}}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve"}, args...), stdio{in: strings.NewReader(""), out: pw, err: errb})
		pw.Close()
	}()
	stop = func() (int, string) {
		cancel()
		go io.Copy(io.Discard, pr)
		select {
		case code := <-done:
			errb.mu.Lock()
			defer errb.mu.Unlock()
			return code, errb.b.String()
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop")
			return -1, ""
		}
	}
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		return "", stop
	}
	u, _, _ := strings.Cut(strings.TrimSpace(line), "?code=")
	return u, stop
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, string(b)
}

// seedWorkspace records a session on ws (with writable roots) in db, as a
// front end would have.
func seedWorkspace(t *testing.T, db, ws string, roots ...string) {
	t.Helper()
	st, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateSession(context.Background(), store.NewSession{Workspace: ws, Title: "seed",
		Approval: policy.OnRequest, Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite, WritableRoots: roots}}); err != nil {
		t.Fatal(err)
	}
}

// `warden serve` never serves a page from the working directory, nor from
// inside any session's workspace or writable root: a page planted there is
// not served, and a folder named there is refused with an error that says
// why. A folder that a session opened later covers stops being served.
func TestServeNeverServesAPlantedFrontend(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv(StaticEnv, "")
	const marker = "PLANTED-PAGE-SIGNS-ITSELF-IN"

	t.Run("a frontend/dist in the working directory is not served", func(t *testing.T) {
		cwd, _ := filepath.EvalSymlinks(t.TempDir())
		plantPage(t, filepath.Join(cwd, "frontend", "dist"), marker)
		t.Chdir(cwd)
		base, stop := served(t, "--db", filepath.Join(t.TempDir(), "w.db"))
		if base == "" {
			code, errs := stop()
			t.Fatalf("serve exited %d: %s", code, errs)
		}
		_, body := get(t, base)
		_, body2 := get(t, base+"index.html")
		stop()
		if strings.Contains(body, marker) || strings.Contains(body2, marker) {
			t.Fatalf("the page planted in the working directory was served: %q", body)
		}
	})
	for _, tc := range []struct {
		name string
		env  bool // name it by $WARDEN_STATIC instead of --static
		root bool // a writable root rather than the workspace
	}{
		{"--static inside a session's workspace is refused", false, false},
		{"--static inside a session's writable root is refused", false, true},
		{"WARDEN_STATIC inside a session's workspace is refused", true, false},
		{"WARDEN_STATIC inside a session's writable root is refused", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			ws, root := filepath.Join(base, "ws"), filepath.Join(base, "root")
			for _, d := range []string{ws, root} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			db := filepath.Join(t.TempDir(), "w.db")
			seedWorkspace(t, db, ws, root)
			holder := ws
			if tc.root {
				holder = root
			}
			dist := plantPage(t, filepath.Join(holder, "frontend", "dist"), marker)
			args := []string{"--db", db}
			if tc.env {
				t.Setenv(StaticEnv, dist)
			} else {
				args = append(args, "--static", dist)
			}
			url, stop := served(t, args...)
			if url != "" {
				_, body := get(t, url)
				stop()
				t.Fatalf("serve started and served %q", body)
			}
			code, errs := stop()
			if code != 2 || !strings.Contains(errs, dist) || !strings.Contains(errs, holder) || !strings.Contains(errs, "caged command can write") {
				t.Fatalf("exit %d, stderr %q: want a refusal naming %s and %s", code, errs, dist, holder)
			}
		})
	}
	t.Run("a folder a later session covers stops being served", func(t *testing.T) {
		base, _ := filepath.EvalSymlinks(t.TempDir())
		dist := plantPage(t, filepath.Join(base, "proj", "frontend", "dist"), marker)
		db := filepath.Join(t.TempDir(), "w.db")
		url, stop := served(t, "--db", db, "--static", dist)
		if url == "" {
			code, errs := stop()
			t.Fatalf("serve exited %d: %s", code, errs)
		}
		if st, body := get(t, url); st != 200 || !strings.Contains(body, marker) {
			stop()
			t.Fatalf("before: %d %q", st, body)
		}
		seedWorkspace(t, db, filepath.Join(base, "proj"))
		time.Sleep(1100 * time.Millisecond) // the roots are listed at most once a second
		st, body := get(t, url)
		stop()
		if st != http.StatusForbidden || strings.Contains(body, marker) {
			t.Fatalf("after the folder became a workspace: %d %q", st, body)
		}
	})
}
