// Package modeltest runs local HTTP servers that speak the Anthropic
// Messages and OpenAI chat-completions streaming protocols, answering from a
// script.Script. Point the real providers at one (BaseURL) to run a whole
// agent conversation end to end over the real wire protocol, offline.
//
// Each POST picks turn k of the script, where k is the number of assistant
// messages in the request body, and streams it as SSE: text a word per
// event, tool-call arguments in small fragments.
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/runtime/model/script"
)

// Server is a scripted model server.
type Server struct {
	*httptest.Server
	script *script.Script
	mu     sync.Mutex
	bodies [][]byte
	// route, when set, picks the script for each request (a parent and its
	// subagents talking to one server, each with its own conversation).
	route func(body []byte) *script.Script
}

// Route makes the server answer each request from the script route picks
// for its body; nil goes back to the server's own script. Set it before
// the first request.
func (s *Server) Route(route func(body []byte) *script.Script) *Server {
	s.mu.Lock()
	s.route = route
	s.mu.Unlock()
	return s
}

// Bodies returns the request bodies received so far.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// NewAnthropic serves POST /v1/messages. Use its URL as the anthropic
// BaseURL.
func NewAnthropic(sc *script.Script) *Server {
	s := &Server{script: sc}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		turn, ok := s.turn(w, r)
		if ok {
			writeSSE(w, anthropicEvents(turn))
		}
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// NewOpenAI serves POST /v1/chat/completions. Use URL+"/v1" as the openai
// BaseURL.
func NewOpenAI(sc *script.Script) *Server {
	s := &Server{script: sc}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		turn, ok := s.turn(w, r)
		if ok {
			writeSSE(w, openaiEvents(turn))
		}
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// turn reads the request and picks the scripted reply, answering errors in
// the API's own error shape.
func (s *Server) turn(w http.ResponseWriter, r *http.Request) (script.Turn, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return script.Turn{}, false
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	sc, route := s.script, s.route
	s.mu.Unlock()
	// Outside the lock: a test's route may hold one request back until
	// another arrives.
	if route != nil {
		if r := route(body); r != nil {
			sc = r
		}
	}
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "body is not JSON: "+err.Error())
		return script.Turn{}, false
	}
	k := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			k++
		}
	}
	switch {
	case k < len(sc.Turns):
		return sc.Turns[k], true
	case sc.OnEnd != "":
		return script.Turn{Text: sc.OnEnd}, true
	}
	apiError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("script has %d turns, request has %d assistant messages", len(sc.Turns), k))
	return script.Turn{}, false
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// sse is one server-sent event; an empty name writes a data-only event.
type sse struct {
	name string
	data any
}

func writeSSE(w http.ResponseWriter, evs []sse) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for _, ev := range evs {
		var data []byte
		if s, ok := ev.data.(string); ok {
			data = []byte(s)
		} else {
			data, _ = json.Marshal(ev.data)
		}
		if ev.name != "" {
			fmt.Fprintf(w, "event: %s\n", ev.name)
		}
		fmt.Fprintf(w, "data: %s\n\n", data)
		if fl != nil {
			fl.Flush()
		}
	}
}

// words splits text after each run of spaces, keeping every byte.
func words(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, " \n")
		if i < 0 {
			return append(out, s)
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}

// fragments cuts s into pieces of about n bytes on rune boundaries: each
// piece travels as a JSON string, which cannot hold half a rune.
func fragments(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 1 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
