package assemble

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
)

// The links that answer an ask from another device, as Open wires them:
// a real ask of a real session, a link made through the service (its own
// loopback listener, as without `warden serve`), opened and answered by a
// second client; the call runs and the audit records the human layer and
// the remote front end. A replay is refused and answers nothing; a link
// whose ask the window answered first is dead, and so is one to a foreign
// Origin's POST.
func TestRemoteLinkThroughTheGraph(t *testing.T) {
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "w.db"), NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	always := policy.Always

	// One session per scene: its model writes one file, which asks.
	start := func(t *testing.T, file string) (ws, session string, done <-chan error, p gate.Pending) {
		ws = routineWorkspace(t)
		g.Service.SetModel(script.New(&script.Script{Version: 1, Turns: []script.Turn{
			{ToolCalls: []script.Call{{ID: "w", Name: "fs.write", Args: []byte(`{"path":"` + file + `","content":"x\n"}`)}}},
			{Text: "done"}}}, script.Options{NoDelay: true}), false)
		s, err := g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: ws, Approval: &always})
		if err != nil {
			t.Fatal(err)
		}
		ch := make(chan error, 1)
		go func() { ch <- g.Service.Run(ctx, s.ID, "write it") }()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			ps, err := g.Service.PendingApprovals(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) == 1 {
				return ws, s.ID, ch, ps[0]
			}
		}
		t.Fatal("no ask")
		return
	}
	decisionOf := func(t *testing.T, session string) store.Event {
		evs, err := g.Store.Events(ctx, store.EventQuery{SessionID: session,
			Kinds: []store.Kind{store.KindPermissionGranted, store.KindPermissionDenied}})
		if err != nil || len(evs) != 1 {
			t.Fatalf("%d decisions: %v", len(evs), err)
		}
		return evs[0].Event
	}

	t.Run("allow once from a second device, once", func(t *testing.T) {
		ws, session, done, p := start(t, "remote.txt")
		lk, err := g.Service.RemoteLink(ctx, runtime.RemoteLinkArgs{RequestID: p.RequestID})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(lk.URL, "http://127.0.0.1:") || len(lk.QRText) == 0 || !strings.Contains(lk.QRSVG, "<svg") {
			t.Fatalf("link %+v", lk)
		}
		phone := newDevice()
		code, page := fetchPage(t, phone, lk.URL)
		if code != 200 || !strings.Contains(page, p.Signature) || !strings.Contains(page, "Allow once") {
			t.Fatalf("%d %s", code, page)
		}
		origin := originOf(lk.URL)
		if code, body := answerPage(t, phone, lk.URL, origin, "once", nonceIn(page)); code != 200 {
			t.Fatalf("answer: %d %s", code, body)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(ws, "remote.txt")); err != nil {
			t.Fatalf("the call did not run: %v", err)
		}
		gr, ok := decisionOf(t, session).(store.PermissionGranted)
		if !ok || gr.Layer != policy.LayerHuman || gr.LayerDetail != gate.ViaRemote {
			t.Fatalf("recorded %+v", decisionOf(t, session))
		}
		if code, _ := answerPage(t, phone, lk.URL, origin, "once", nonceIn(page)); code != http.StatusGone {
			t.Fatalf("a replay got %d", code)
		}
		if code, _ := fetchPage(t, newDevice(), lk.URL); code != http.StatusGone {
			t.Fatalf("a second device after use got %d", code)
		}
	})

	t.Run("a foreign origin answers nothing; the link dies with its ask", func(t *testing.T) {
		ws, session, done, p := start(t, "window.txt")
		lk, err := g.Service.RemoteLink(ctx, runtime.RemoteLinkArgs{RequestID: p.RequestID})
		if err != nil {
			t.Fatal(err)
		}
		phone := newDevice()
		_, page := fetchPage(t, phone, lk.URL)
		if code, _ := answerPage(t, phone, lk.URL, "http://evil.example", "once", nonceIn(page)); code != http.StatusForbidden {
			t.Fatalf("a foreign origin got %d", code)
		}
		if ps, _ := g.Service.PendingApprovals(ctx, session); len(ps) != 1 {
			t.Fatal("a foreign origin answered the ask")
		}
		if err := g.Service.Answer(ctx, runtime.AnswerArgs{RequestID: p.RequestID, Answer: runtime.AnswerDeny, Via: gate.ViaWindow}); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if code, body := answerPage(t, phone, lk.URL, originOf(lk.URL), "once", nonceIn(page)); code != http.StatusGone {
			t.Fatalf("a link whose ask the window answered got %d: %s", code, body)
		}
		if _, err := os.Stat(filepath.Join(ws, "window.txt")); err == nil {
			t.Fatal("the denied call ran")
		}
		d, ok := decisionOf(t, session).(store.PermissionDenied)
		if !ok || d.Layer != policy.LayerHuman || d.LayerDetail != gate.ViaWindow {
			t.Fatalf("recorded %+v", decisionOf(t, session))
		}
	})
}

// newDevice is one browser: its own cookies, redirects not followed.
func newDevice() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func fetchPage(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func answerPage(t *testing.T, c *http.Client, u, origin, answer, nonce string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(url.Values{"answer": {answer}, "nonce": {nonce}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func nonceIn(page string) string {
	_, rest, _ := strings.Cut(page, `name="nonce" value="`)
	n, _, _ := strings.Cut(rest, `"`)
	return n
}

func originOf(u string) string {
	p, _ := url.Parse(u)
	return p.Scheme + "://" + p.Host
}
