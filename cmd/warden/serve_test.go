//go:build !wardenslim

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServe starts `warden serve`, reads the printed URL, and checks that
// its one-time code signs in once (a session cookie) and that the cookie
// opens the API and its absence does not.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errb strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", filepath.Join(t.TempDir(), "w.db"), "--static", t.TempDir()},
			stdio{in: strings.NewReader(""), out: pw, err: &safeWriter{b: &errb}})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	u := strings.TrimSpace(line)
	if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "/?code=") || strings.Contains(u, "token") {
		t.Fatalf("url %q", u)
	}
	base, code, _ := strings.Cut(u, "?code=")
	exchange := func() *http.Response {
		res, err := http.Post(base+"api/auth", "application/json", strings.NewReader(`{"code":"`+code+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	res := exchange()
	if res.StatusCode != http.StatusNoContent || len(res.Cookies()) != 1 {
		t.Fatalf("exchange: %d %v", res.StatusCode, res.Header["Set-Cookie"])
	}
	cookie := res.Cookies()[0].Name + "=" + res.Cookies()[0].Value
	if again := exchange(); again.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the code was accepted twice: %d", again.StatusCode)
	}
	cases := []struct {
		name   string
		method string // default Info
		auth   string
		status int
		want   string
	}{
		{name: "with the session cookie", auth: cookie, status: http.StatusOK, want: `"demo":true`},
		{name: "without", status: http.StatusUnauthorized},
		{name: "settings are served", method: "GetSettings", auth: cookie, status: http.StatusOK, want: `"config_path":`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := c.method
			if method == "" {
				method = "Info"
			}
			req, _ := http.NewRequest(http.MethodPost, base+"api/"+method, strings.NewReader("{}"))
			if c.auth != "" {
				req.Header.Set("Cookie", c.auth)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("status %d: %s", res.StatusCode, b)
			}
			if !strings.Contains(string(b), c.want) {
				t.Fatalf("%s answered %s, want %s", method, b, c.want)
			}
		})
	}
	cancel()
	go io.Copy(io.Discard, pr)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(errb.String(), "no built frontend") {
		t.Errorf("stderr does not explain the missing frontend: %s", errb.String())
	}
}

func TestServeRefusesAPublicAddress(t *testing.T) {
	var out, errb strings.Builder
	code := run(context.Background(), []string{"serve", "--addr", "0.0.0.0:0", "--db", filepath.Join(t.TempDir(), "w.db")},
		stdio{in: strings.NewReader(""), out: &out, err: &errb})
	if code != 2 || !strings.Contains(errb.String(), "--insecure-bind") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

type safeWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *safeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
