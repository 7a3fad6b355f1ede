package remote

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
)

// board is a fake seat: the asks waiting and the answers taken.
type board struct {
	mu      sync.Mutex
	pending []gate.Pending
	answers []gate.AnswerArgs
}

func (b *board) list(context.Context) ([]gate.Pending, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]gate.Pending(nil), b.pending...), nil
}

func (b *board) answer(_ context.Context, a gate.AnswerArgs) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, p := range b.pending {
		if p.RequestID == a.RequestID {
			b.answers = append(b.answers, a)
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			return nil
		}
	}
	return &gate.RequestError{RequestID: a.RequestID, Why: "no such pending request"}
}

var ask = gate.Pending{RequestID: "r1", SessionID: "s1", Tool: "shell.exec", Live: true, Risk: policy.RiskHigh,
	Args:      json.RawMessage(`{"command":"rm -rf build\u202e && echo ok","cwd":"sub"}`),
	Reasons:   []policy.Reason{policy.ReasonDestructiveEffect},
	Signature: "shell=rm -rf build\u202e && echo ok",
	Trace:     []policy.Step{{Step: "approval", Saw: "on-request; destructive-effect: rm -r: removes a whole tree", Concluded: "ask"}},
	Answers:   []gate.AnswerNote{{Kind: "model", Name: "haiku", Answer: gate.AnswererPass, Why: "it denied 3 calls in a row"}},
}

type rig struct {
	b     *board
	l     *Links
	srv   *httptest.Server
	clock time.Time
	mu    sync.Mutex
}

func newRig(t *testing.T) *rig {
	r := &rig{b: &board{pending: []gate.Pending{ask}}, clock: time.Unix(1_800_000_000, 0)}
	r.l = New(Config{Pending: r.b.list, Answer: r.b.answer, TTL: 3 * time.Minute, Now: func() time.Time {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.clock
	}, Session: func(context.Context, string) (Session, bool) {
		return Session{Title: "fix the build", Workspace: "/home/u/proj", Axes: AxesText(policy.OnRequest, policy.SandboxPolicy{Kind: policy.WorkspaceWrite})}, true
	}})
	r.srv = httptest.NewServer(r.l.Handler())
	t.Cleanup(r.srv.Close)
	return r
}

func (r *rig) advance(d time.Duration) {
	r.mu.Lock()
	r.clock = r.clock.Add(d)
	r.mu.Unlock()
}

func (r *rig) link(t *testing.T) RemoteLink {
	t.Helper()
	lk, err := r.l.Make(context.Background(), "r1", r.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return lk
}

// device is one browser: its own cookie jar.
func device(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func post(t *testing.T, c *http.Client, u, origin, answer, nonce string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(url.Values{"answer": {answer}, "nonce": {nonce}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func nonceOf(page string) string {
	_, rest, _ := strings.Cut(page, `name="nonce" value="`)
	n, _, _ := strings.Cut(rest, `"`)
	return n
}

// The page shows the prompt as the window does: the words table's
// reasons, the command with its invisible character as a badge and its
// risky line marked, the signature, who passed the ask on; no script.
func TestPageShowsThePrompt(t *testing.T) {
	r := newRig(t)
	lk := r.link(t)
	code, page := get(t, device(t), lk.URL)
	if code != 200 {
		t.Fatalf("%d %s", code, page)
	}
	for _, want := range []string{
		policy.ReasonText(policy.ReasonDestructiveEffect),
		`<span class="inv" title="bidi control (reorders the text around it)">⟨U+202E⟩</span>`,
		`class="line risky"`, "High risk", "shell.exec",
		"Its signature: <code>shell=rm -rf build<span class=\"inv\"",
		"model haiku answered pass: it denied 3 calls in a row",
		"fix the build · /home/u/proj · On request · Workspace write, network off",
		`data-testid="allow-once"`, `data-testid="deny"`, "in sub",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, never := range []string{"<script", "Always allow", "\u202e"} {
		if strings.Contains(page, never) {
			t.Errorf("the page holds %q", never)
		}
	}
	if len(lk.QRText) < 10 || !strings.HasPrefix(lk.QRSVG, "<svg") || !strings.Contains(lk.URL, "/remote/") {
		t.Fatalf("link %+v", lk)
	}
}

// One answer, from the device that opened the link, from the link's own
// page; everything else refused and nothing answered.
func TestLinkRules(t *testing.T) {
	t.Run("allow once from the page", func(t *testing.T) {
		r := newRig(t)
		lk := r.link(t)
		phone := device(t)
		_, page := get(t, phone, lk.URL)
		code, done := post(t, phone, lk.URL, r.srv.URL, "once", nonceOf(page))
		if code != 200 || !strings.Contains(done, "Allowed once") {
			t.Fatalf("%d %s", code, done)
		}
		if len(r.b.answers) != 1 || r.b.answers[0].Answer != gate.AnswerOnce || r.b.answers[0].Via != gate.ViaRemote || r.b.answers[0].RequestID != "r1" {
			t.Fatalf("answers %+v", r.b.answers)
		}
		// A replay of the same POST, and a new GET, are refused.
		if code, body := post(t, phone, lk.URL, r.srv.URL, "once", nonceOf(page)); code != 410 || !strings.Contains(body, "already used") {
			t.Fatalf("replay: %d %s", code, body)
		}
		if code, _ := get(t, phone, lk.URL); code != 410 {
			t.Fatalf("GET after use: %d", code)
		}
		if len(r.b.answers) != 1 {
			t.Fatal("a replay answered")
		}
	})
	cases := []struct {
		name   string
		do     func(t *testing.T, r *rig, lk RemoteLink) (int, string)
		status int
		words  string
	}{
		{"a second device", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			get(t, device(t), lk.URL)
			return get(t, device(t), lk.URL)
		}, 403, "another device"},
		{"a second device posting", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			_, page := get(t, device(t), lk.URL)
			return post(t, device(t), lk.URL, r.srv.URL, "once", nonceOf(page))
		}, 403, "Only the browser that opened this link"},
		{"a foreign origin", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			return post(t, c, lk.URL, "http://evil.example", "once", nonceOf(page))
		}, 403, "cross-origin request refused"},
		{"no origin", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			return post(t, c, lk.URL, "", "once", nonceOf(page))
		}, 403, "cross-origin"},
		{"a null origin", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			return post(t, c, lk.URL, "null", "once", nonceOf(page))
		}, 403, "cross-origin"},
		{"another port of the host", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			return post(t, c, lk.URL, strings.Replace(r.srv.URL, "127.0.0.1:", "127.0.0.1:1", 1), "once", nonceOf(page))
		}, 403, "cross-origin"},
		{"a stale nonce", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			get(t, c, lk.URL)
			return post(t, c, lk.URL, r.srv.URL, "once", "guess")
		}, 403, "did not come from the page"},
		{"always is not an answer here", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			return post(t, c, lk.URL, r.srv.URL, "always", nonceOf(page))
		}, 400, "Allow once or Deny"},
		{"expired", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			r.advance(3*time.Minute + time.Second)
			return post(t, c, lk.URL, r.srv.URL, "once", nonceOf(page))
		}, 410, "expired"},
		{"expired before it was opened", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			r.advance(4 * time.Minute)
			return get(t, device(t), lk.URL)
		}, 410, "expired"},
		{"its ask closed", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			r.l.OnGate(gate.AskClosed{SessionID: "s1", RequestID: "r1"})
			return post(t, c, lk.URL, r.srv.URL, "once", nonceOf(page))
		}, 410, "its ask was answered or ended"},
		{"its ask was answered in the window", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			c := device(t)
			_, page := get(t, c, lk.URL)
			_ = r.b.answer(context.Background(), gate.AnswerArgs{RequestID: "r1", Answer: gate.AnswerDeny, Via: gate.ViaWindow})
			return post(t, c, lk.URL, r.srv.URL, "once", nonceOf(page))
		}, 410, "before your answer arrived"},
		{"a newer link", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			r.link(t)
			return get(t, device(t), lk.URL)
		}, 410, "a newer link was made"},
		{"a guessed token", func(t *testing.T, r *rig, lk RemoteLink) (int, string) {
			return get(t, device(t), r.srv.URL+"/remote/"+strings.Repeat("A", 43))
		}, 404, "not one Warden made"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			lk := r.link(t)
			before := len(r.b.answers)
			code, body := tc.do(t, r, lk)
			if code != tc.status || !strings.Contains(body, tc.words) {
				t.Fatalf("%d, want %d with %q:\n%s", code, tc.status, tc.words, body)
			}
			r.b.mu.Lock()
			n := len(r.b.answers)
			r.b.mu.Unlock()
			if tc.name != "its ask was answered in the window" && n != before {
				t.Fatal("a refused request answered the ask")
			}
		})
	}
}

// No link for an ask that is not live, and none when the organisation
// does not allow answers from another device.
func TestMakeRefuses(t *testing.T) {
	r := newRig(t)
	if _, err := r.l.Make(context.Background(), "nope", r.srv.URL); err != ErrNotPending {
		t.Fatal(err)
	}
	r.b.pending[0].Live = false
	if _, err := r.l.Make(context.Background(), "r1", r.srv.URL); err != ErrNotPending {
		t.Fatal(err)
	}
	l := New(Config{Pending: r.b.list, Allowed: func() bool { return false }})
	if _, err := l.Make(context.Background(), "r1", r.srv.URL); err != ErrNotAllowed {
		t.Fatal(err)
	}
}

// The service's own listener serves only /remote/ and only under its own
// host names.
func TestServiceListener(t *testing.T) {
	b := &board{pending: []gate.Pending{ask}}
	s := &Service{Links: New(Config{Pending: b.list, Answer: b.answer})}
	defer s.Close()
	lk, err := s.Make(context.Background(), "r1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lk.URL, "http://127.0.0.1:") {
		t.Fatalf("url %s", lk.URL)
	}
	if code, _ := get(t, device(t), lk.URL); code != 200 {
		t.Fatalf("%d", code)
	}
	base, _ := s.Base()
	if code, _ := get(t, device(t), base+"/api/Info"); code != 404 {
		t.Fatalf("the listener serves more than links: %d", code)
	}
	req, _ := http.NewRequest(http.MethodGet, lk.URL, nil)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("a foreign Host got %d", resp.StatusCode)
	}
}

func TestQR(t *testing.T) {
	svg, text, err := QR("http://192.168.1.20:8788/remote/" + strings.Repeat("x", 43))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, `fill="#000"`) || strings.Count(svg, "M") < 100 {
		t.Fatalf("svg %s", svg[:100])
	}
	for _, row := range text {
		if len([]rune(row)) != len([]rune(text[0])) {
			t.Fatal("ragged rows")
		}
	}
	if !strings.HasPrefix(text[0], "████") {
		t.Fatalf("no quiet zone: %q", text[0])
	}
}
