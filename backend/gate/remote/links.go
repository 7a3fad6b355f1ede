// Package remote answers a pending ask from another device: a single-use,
// short-lived link (a URL and a QR code) that shows exactly the prompt the
// window shows and offers Allow once or Deny.
//
// A link is 256 random bits naming one live ask. It dies with its first
// answer, with its ask (answered elsewhere, cancelled, timed out), after
// its time to live (3 minutes by default, [remote] ttl), or when a new link
// is made for the same ask. The first browser that opens it owns it (a
// device cookie, HttpOnly and SameSite=Strict, scoped to the link's path):
// another device is refused. An answer must come from the page itself: a
// POST whose Origin is not the link's own origin, or that carries none, is
// refused, and so is a replay of a used link. The answer goes through the
// same walk as the window's (runtime.Service.Answer), recorded with front
// end "remote" (layer human, detail remote), so the audit row has the
// same shape. "Always" and grants are not offered: a remote answer covers
// one call.
//
// The page is rendered here, without the window's code: the words come
// from policy's words table (the one the window's TypeScript is generated
// from) and the command is revealed by backend/reveal (held to the
// window's case file), so it shows what the window shows. It runs no
// script; its only style sheet is served beside it.
//
// The links are served by `warden serve` on its own listener (same-machine
// browsers), and on [remote] address when set (another device on the
// network: only /remote/ is served there). A front end without a server
// (the desktop window, the TUI) starts one on demand (Service).
package remote

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/gate"
)

// DefaultTTL is how long a link lives unless configured.
const DefaultTTL = 3 * time.Minute

// Session is what the page says about the ask's session.
type Session struct {
	Title     string
	Workspace string
	Axes      string // "On request · Workspace write, network off"
}

// Config wires the links.
type Config struct {
	// Pending lists the asks waiting for a human (with their MCP info):
	// runtime.Service.PendingApprovals.
	Pending func(ctx context.Context) ([]gate.Pending, error)
	// Answer answers one ask as the window does: runtime.Service.Answer.
	Answer func(ctx context.Context, a gate.AnswerArgs) error
	// Session describes a session for the page; nil shows none.
	Session func(ctx context.Context, id string) (Session, bool)
	// Allowed says whether the organisation lets remote answers in; nil
	// allows them.
	Allowed func() bool
	TTL     time.Duration
	Now     func() time.Time
}

// Links are the live links. Safe for concurrent use.
type Links struct {
	cfg Config

	mu    sync.Mutex
	links map[string]*link // sha256(token) → link
}

type link struct {
	key       string // sha256 of the token, hex
	requestID string
	sessionID string
	expires   time.Time
	device    string // the device cookie's value once opened; "" before
	nonce     string // the rendered form's, bound to the device
	used      bool
	dead      string // why it died ("" while alive)
}

// RemoteLink is a made link.
type RemoteLink struct {
	RequestID string `json:"request_id"`
	URL       string `json:"url"`
	ExpiresAt int64  `json:"expires_at"` // unix ms
	// QR is the URL as a QR code: an SVG for the window and rows of block
	// characters for a terminal.
	QRSVG  string   `json:"qr_svg"`
	QRText []string `json:"qr_text"`
}

// Errors of Make.
var (
	ErrNotPending = errors.New("no live ask with that request id waits for a human")
	ErrNotAllowed = errors.New("your organisation's policy does not allow answers from another device")
	ErrNoBase     = errors.New("no address serves remote links in this process")
)

// New returns the links.
func New(cfg Config) *Links {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Links{cfg: cfg, links: map[string]*link{}}
}

// Make makes a link to a live ask, served under base (scheme://host:port).
// A link made before for the same ask dies.
func (l *Links) Make(ctx context.Context, requestID, base string) (RemoteLink, error) {
	if l.cfg.Allowed != nil && !l.cfg.Allowed() {
		return RemoteLink{}, ErrNotAllowed
	}
	if base == "" {
		return RemoteLink{}, ErrNoBase
	}
	p, ok := l.pending(ctx, requestID)
	if !ok || !p.Live {
		return RemoteLink{}, ErrNotPending
	}
	tok, err := token()
	if err != nil {
		return RemoteLink{}, err
	}
	k := keyOf(tok)
	exp := l.cfg.Now().Add(l.cfg.TTL)
	l.mu.Lock()
	l.sweep()
	for _, x := range l.links {
		if x.requestID == requestID && x.dead == "" {
			x.dead = "a newer link was made for this ask"
		}
	}
	l.links[k] = &link{key: k, requestID: requestID, sessionID: p.SessionID, expires: exp}
	l.mu.Unlock()
	url := base + "/remote/" + tok
	svg, text, err := QR(url)
	if err != nil {
		return RemoteLink{}, err
	}
	return RemoteLink{RequestID: requestID, URL: url, ExpiresAt: exp.UnixMilli(), QRSVG: svg, QRText: text}, nil
}

// OnGate is the gate's listener: a closed ask kills its links.
func (l *Links) OnGate(ev gate.Event) {
	if c, ok := ev.(gate.AskClosed); ok {
		l.Closed(c.RequestID)
	}
}

// Closed kills the links of an ask that ended.
func (l *Links) Closed(requestID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.links {
		if x.requestID == requestID && x.dead == "" {
			x.dead = "its ask was answered or ended"
		}
	}
}

// sweep forgets links long dead (l.mu held).
func (l *Links) sweep() {
	now := l.cfg.Now()
	for k, x := range l.links {
		if now.Sub(x.expires) > time.Hour {
			delete(l.links, k)
		}
	}
}

func (l *Links) pending(ctx context.Context, requestID string) (gate.Pending, bool) {
	if l.cfg.Pending == nil {
		return gate.Pending{}, false
	}
	ps, err := l.cfg.Pending(ctx)
	if err != nil {
		return gate.Pending{}, false
	}
	for _, p := range ps {
		if p.RequestID == requestID {
			return p, true
		}
	}
	return gate.Pending{}, false
}

// refusal is why a request to a link is refused, with its status.
type refusal struct {
	status int
	title  string
	why    string
}

func (r *refusal) Error() string { return r.why }

// open checks a link for a request from device (its cookie, "" for none):
// alive, not used, not expired, and this device's. A first open binds the
// device: newDevice is then the cookie to set.
func (l *Links) open(tok, device string) (x link, newDevice string, err error) {
	k := keyOf(tok)
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.links[k]
	switch {
	case !ok:
		return link{}, "", &refusal{404, "Unknown link", "This link is not one Warden made, or Warden was restarted since."}
	case p.used:
		return link{}, "", &refusal{410, "Link already used", "This link was used once and is dead: a link answers one ask, once."}
	case p.dead != "":
		return link{}, "", &refusal{410, "Link no longer valid", "This link is dead: " + p.dead + "."}
	case !l.cfg.Now().Before(p.expires):
		p.dead = "it expired"
		return link{}, "", &refusal{410, "Link expired", "This link expired; make a new one from the window or the terminal."}
	}
	if p.device == "" {
		d, err := token()
		if err != nil {
			return link{}, "", err
		}
		p.device, newDevice = d, d
		device = d
	}
	if subtle.ConstantTimeCompare([]byte(device), []byte(p.device)) != 1 {
		return link{}, "", &refusal{403, "Opened on another device",
			"This link was already opened on another device or browser: only that one may answer with it."}
	}
	if p.nonce == "" {
		n, err := token()
		if err != nil {
			return link{}, "", err
		}
		p.nonce = n
	}
	return *p, newDevice, nil
}

// use spends a link for an answer: checked again and marked used in one
// step, so two answers never both pass.
func (l *Links) use(tok, device, nonce string) (link, error) {
	k := keyOf(tok)
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.links[k]
	switch {
	case !ok:
		return link{}, &refusal{404, "Unknown link", "This link is not one Warden made, or Warden was restarted since."}
	case p.used:
		return link{}, &refusal{410, "Link already used", "This link was already used: an answer is given once."}
	case p.dead != "":
		return link{}, &refusal{410, "Link no longer valid", "This link is dead: " + p.dead + "."}
	case !l.cfg.Now().Before(p.expires):
		p.dead = "it expired"
		return link{}, &refusal{410, "Link expired", "This link expired before the answer arrived."}
	case p.device == "" || subtle.ConstantTimeCompare([]byte(device), []byte(p.device)) != 1:
		return link{}, &refusal{403, "Opened on another device", "Only the browser that opened this link may answer with it."}
	case p.nonce == "" || subtle.ConstantTimeCompare([]byte(nonce), []byte(p.nonce)) != 1:
		return link{}, &refusal{403, "Stale page", "This answer did not come from the page this link shows: open the link again."}
	}
	p.used = true
	return *p, nil
}

func token() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("remote: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func keyOf(tok string) string {
	s := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(s[:])
}
