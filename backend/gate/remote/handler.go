package remote

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/gate"
)

// ContentSecurityPolicy of the remote pages: no script at all, the style
// sheet from this origin, forms only to this origin, never framed.
const ContentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
	"base-uri 'none'; frame-ancestors 'none'"

// deviceCookie names the cookie that binds a link to the browser that
// opened it.
const deviceCookie = "warden_remote_device"

// Handler serves /remote/{token} (the page, and its answer) and
// /remote/assets/remote.css. The server it is mounted on checks the Host.
func (l *Links) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /remote/assets/remote.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(styleSheet)
	})
	mux.HandleFunc("GET /remote/{token}", l.page)
	mux.HandleFunc("POST /remote/{token}", l.answer)
	mux.HandleFunc("/remote/", func(w http.ResponseWriter, r *http.Request) {
		l.render(w, http.StatusNotFound, pageData{Title: "Unknown link", Refusal: "This address is not a Warden link."})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		// same-origin, not no-referrer: under no-referrer a browser sends
		// `Origin: null` with the page's own form POST, which the origin
		// check (here and in warden serve) must refuse — the answer could
		// never be given from a real browser. Cross-origin requests still
		// get no referrer, so the token in the path never leaves.
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
}

func (l *Links) page(w http.ResponseWriter, r *http.Request) {
	tok := r.PathValue("token")
	c, _ := r.Cookie(deviceCookie)
	device := ""
	if c != nil {
		device = c.Value
	}
	x, newDevice, err := l.open(tok, device)
	if err != nil {
		l.refuse(w, err)
		return
	}
	if newDevice != "" {
		http.SetCookie(w, &http.Cookie{Name: deviceCookie, Value: newDevice, Path: "/remote/" + tok, HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, Expires: x.expires.Add(time.Minute)})
	}
	p, ok := l.pending(r.Context(), x.requestID)
	if !ok || !p.Live {
		l.Closed(x.requestID)
		l.render(w, http.StatusGone, pageData{Title: "Link no longer valid", Refusal: "Its ask was answered or ended."})
		return
	}
	d := pageData{Title: "Permission request", Ask: view(p), Action: "/remote/" + tok, Nonce: x.nonce, Expires: clock(x.expires)}
	if l.cfg.Session != nil {
		if s, ok := l.cfg.Session(r.Context(), p.SessionID); ok {
			line := s.Title
			if line == "" {
				line = "Untitled session"
			}
			d.Session = revealHTML(line + " · " + s.Workspace + " · " + s.Axes)
		}
	}
	l.render(w, http.StatusOK, d)
}

func (l *Links) answer(w http.ResponseWriter, r *http.Request) {
	tok := r.PathValue("token")
	if !sameOrigin(r) {
		l.render(w, http.StatusForbidden, pageData{Title: "Refused", Refusal: "This answer did not come from the link's own page (cross-origin request refused)."})
		return
	}
	if err := r.ParseForm(); err != nil {
		l.render(w, http.StatusBadRequest, pageData{Title: "Refused", Refusal: "The answer could not be read."})
		return
	}
	answer := r.PostForm.Get("answer")
	if answer != gate.AnswerOnce && answer != gate.AnswerDeny {
		l.render(w, http.StatusBadRequest, pageData{Title: "Refused", Refusal: "From another device an ask is answered Allow once or Deny."})
		return
	}
	c, _ := r.Cookie(deviceCookie)
	device := ""
	if c != nil {
		device = c.Value
	}
	x, err := l.use(tok, device, r.PostForm.Get("nonce"))
	if err != nil {
		l.refuse(w, err)
		return
	}
	if l.cfg.Answer == nil {
		l.render(w, http.StatusServiceUnavailable, pageData{Title: "Not answered", Refusal: "This process takes no answers."})
		return
	}
	if err := l.cfg.Answer(r.Context(), gate.AnswerArgs{RequestID: x.requestID, Answer: answer, Via: gate.ViaRemote}); err != nil {
		if errors.Is(err, gate.ErrUnknownRequest) {
			l.render(w, http.StatusGone, pageData{Title: "Link no longer valid", Refusal: "Its ask was answered or ended before your answer arrived."})
			return
		}
		l.render(w, http.StatusConflict, pageData{Title: "Not answered", Refusal: "Warden did not take the answer: " + err.Error()})
		return
	}
	if answer == gate.AnswerOnce {
		l.render(w, http.StatusOK, pageData{Title: "Allowed once", Done: "The call runs now. This link is spent."})
		return
	}
	l.render(w, http.StatusOK, pageData{Title: "Denied", Done: "The call does not run; the agent is told you denied it. This link is spent."})
}

// sameOrigin: a POST must carry an Origin naming the host it was sent to
// (the link's page); none, "null" or another is refused.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return false
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Path != "" && u.Path != "/" {
		return false
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

func (l *Links) refuse(w http.ResponseWriter, err error) {
	var rf *refusal
	if errors.As(err, &rf) {
		l.render(w, rf.status, pageData{Title: rf.title, Refusal: rf.why})
		return
	}
	l.render(w, http.StatusInternalServerError, pageData{Title: "Error", Refusal: err.Error()})
}

func (l *Links) render(w http.ResponseWriter, status int, d pageData) {
	var b bytes.Buffer
	if err := pageTemplate().ExecuteTemplate(&b, "page", d); err != nil {
		http.Error(w, "the page could not be drawn: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
