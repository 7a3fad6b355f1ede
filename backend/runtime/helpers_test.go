package runtime

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
	"github.com/warden-dev/warden/backend/tools"
)

// sseServer speaks the Anthropic Messages wire protocol: each request gets
// the next recorded SSE stream from testdata, flushed event by event.
type sseServer struct {
	*httptest.Server
	mu     sync.Mutex
	files  []string
	n      int
	bodies [][]byte
	// route, when set, picks the file for a request body instead of the
	// next in files (for concurrent parent and child loops).
	route func(body []byte) string
}

func newSSEServer(t *testing.T, files ...string) *sseServer {
	t.Helper()
	return newRoutedSSE(t, nil, files...)
}

func newRoutedSSE(t *testing.T, route func(body []byte) string, files ...string) *sseServer {
	t.Helper()
	s := &sseServer{files: files, route: route}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		i := s.n
		s.n++
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		name := ""
		if s.route != nil {
			name = s.route(body)
		} else if i < len(s.files) {
			name = s.files[i]
		}
		if r.URL.Path != "/v1/messages" || name == "" {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"no scripted reply"}}`, http.StatusBadRequest)
			return
		}
		data, err := os.ReadFile(filepath.Join("testdata", "e2e", name))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl, _ := w.(http.Flusher)
		for _, chunk := range splitSSE(data) {
			_, _ = w.Write(chunk)
			if fl != nil {
				fl.Flush()
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func splitSSE(data []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i+1 < len(data); i++ {
		if data[i] == '\n' && data[i+1] == '\n' {
			out = append(out, data[start:i+2])
			start = i + 2
		}
	}
	if start < len(data) {
		out = append(out, data[start:])
	}
	return out
}

func anthropicProvider(t *testing.T, url string) model.Provider {
	t.Helper()
	p, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "sk-ant-test", BaseURL: url, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rig is a service on a real SQLite file, the real engine, the real tools
// and the real bwrap cage.
type rig struct {
	t      *testing.T
	dbPath string
	ws     string
	cage   *sandbox.Cage
	st     *store.Store
	svc    *Service
	cfg    rigConfig
}

// rigConfig is a service's Config with what its gate is built from (the
// gate is assemble's to build in the product; a test builds its own).
type rigConfig struct {
	Config
	Engine          gate.Decider
	Headless        bool
	ApprovalTimeout time.Duration
	Network         gate.NetworkConfig
	Checkpoint      gate.Checkpointer
}

// open builds the gate on st and the service on it.
func (c rigConfig) open(ctx context.Context, st *store.Store) (*Service, error) {
	g, err := gate.New(gate.Config{Decider: c.Engine, Store: st, Headless: c.Headless, ApprovalTimeout: c.ApprovalTimeout,
		Network: c.Network, Now: c.Now, Checkpoint: c.Checkpoint})
	if err != nil {
		return nil, err
	}
	cfg := c.Config
	cfg.Store, cfg.Gate = st, g
	return New(ctx, cfg)
}

func newRig(t *testing.T, prov model.Provider, mod func(*rigConfig)) *rig {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# demo project\nRun make.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, _ = filepath.EvalSymlinks(ws)
	r := &rig{t: t, dbPath: filepath.Join(t.TempDir(), "warden.db"), ws: ws}
	r.cage = sandbox.New(sandbox.Config{})
	r.cage.Detect(context.Background())
	t.Cleanup(func() { _ = r.cage.Close() })
	reg, err := tools.Builtins(r.cage, tools.NewMonitors(r.cage), "")
	if err != nil {
		t.Fatal(err)
	}
	r.cfg = rigConfig{Engine: policy.New(policy.Config{}), Config: Config{Tools: reg, Provider: prov, Caged: r.cage.Caged,
		CageReason: r.cage.Status().Reason, Version: "test"}}
	if mod != nil {
		mod(&r.cfg)
	}
	r.open()
	t.Cleanup(r.close)
	return r
}

func (r *rig) open() {
	r.t.Helper()
	st, err := store.Open(context.Background(), r.dbPath, storetest.KeyFor(r.dbPath))
	if err != nil {
		r.t.Fatal(err)
	}
	svc, err := r.cfg.open(context.Background(), st)
	if err != nil {
		r.t.Fatal(err)
	}
	r.st, r.svc = st, svc
}

func (r *rig) close() {
	if r.svc != nil {
		_ = r.svc.Close()
		_ = r.st.Close()
		r.svc, r.st = nil, nil
	}
}

func (r *rig) session(mod func(*CreateSessionArgs)) Session {
	r.t.Helper()
	a := CreateSessionArgs{Workspace: r.ws}
	if mod != nil {
		mod(&a)
	}
	s, err := r.svc.CreateSession(context.Background(), a)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// waitPending waits until a session has n pending asks.
func (r *rig) waitPending(id string, n int) []Approval {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ps, err := r.svc.PendingApprovals(context.Background(), id)
		if err != nil {
			r.t.Fatal(err)
		}
		if len(ps) == n {
			return ps
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("waited for %d pending asks, have %d", n, len(ps))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitIdle waits for a session's turn to end.
func (r *rig) waitIdle(id string) {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r.svc.mu.Lock()
		_, busy := r.svc.turns[id]
		r.svc.mu.Unlock()
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatal("the turn did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// events returns a session's stored events of the given kinds.
func (r *rig) events(id string, kinds ...store.Kind) []store.StoredEvent {
	r.t.Helper()
	evs, err := r.st.Events(context.Background(), store.EventQuery{SessionID: id, Kinds: kinds})
	if err != nil {
		r.t.Fatal(err)
	}
	return evs
}

// askKinds are the kinds an ask's life is recorded in.
var askKinds = []store.Kind{store.KindPermissionRequested, store.KindPermissionGranted, store.KindPermissionDenied,
	store.KindToolInvocationStarted, store.KindToolInvocationCompleted, store.KindToolInvocationFailed}
