// Package wiretest is a local HTTP server that replays recorded provider
// responses (SSE streams and error bodies) event by event, so provider tests
// exercise the real wire protocol and the real SDK clients.
package wiretest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted HTTP response.
type Reply struct {
	Status int               // default 200
	Header map[string]string // extra headers (Retry-After...)
	// File is sent as the body. A 200 body is sent as SSE: split at blank
	// lines and flushed event by event.
	File string
	// HoldAfter, when > 0, stops after that many SSE events and waits for
	// the client to go away, to test cancellation mid-stream.
	HoldAfter int
}

// Request is what the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server serves Replies in order, one per request.
type Server struct {
	*httptest.Server
	t       testing.TB
	mu      sync.Mutex
	replies []Reply
	reqs    []Request
}

// New starts a server; it is closed when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var rep Reply
	ok := n < len(s.replies)
	if ok {
		rep = s.replies[n]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("wiretest: unexpected request %d to %s", n+1, r.URL.Path)
		http.Error(w, `{"error":{"message":"no scripted reply"}}`, http.StatusInternalServerError)
		return
	}
	data, err := os.ReadFile(rep.File)
	if err != nil {
		s.t.Errorf("wiretest: %v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(data)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	events := bytes.SplitAfter(data, []byte("\n\n"))
	for i, ev := range events {
		if rep.HoldAfter > 0 && i == rep.HoldAfter {
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
				s.t.Errorf("wiretest: client never went away")
			}
			return
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}
