package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// TrustScope is how long a trust lasts.
type TrustScope string

const (
	TrustSession    TrustScope = "session"    // until the session ends (or the app exits)
	TrustPersistent TrustScope = "persistent" // in the store, until revoked
)

// ToolTrust is what the human saw of one tool when trusting its server. The
// description is kept so a later change can be shown as a diff.
type ToolTrust struct {
	Hash        string `json:"hash"`
	Description string `json:"description"`
}

// TrustRecord is one trusted server.
type TrustRecord struct {
	Server     string               `json:"server"`
	ConfigHash string               `json:"config_hash"`
	Tools      map[string]ToolTrust `json:"tools"`
	Scope      TrustScope           `json:"scope"`
	TrustedAt  time.Time            `json:"trusted_at"`
}

// TrustStore keeps trust records by server name. The session scope lives in
// memory (MemoryTrustStore); the persistent scope is the SQLite store.
type TrustStore interface {
	Get(ctx context.Context, server string) (TrustRecord, bool, error)
	Put(ctx context.Context, rec TrustRecord) error
	Delete(ctx context.Context, server string) error
}

// MemoryTrustStore is a TrustStore in memory, for the session scope.
type MemoryTrustStore struct {
	mu   sync.Mutex
	recs map[string]TrustRecord
}

// NewMemoryTrustStore returns an empty store.
func NewMemoryTrustStore() *MemoryTrustStore {
	return &MemoryTrustStore{recs: map[string]TrustRecord{}}
}

func (s *MemoryTrustStore) Get(_ context.Context, server string) (TrustRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.recs[server]
	rec.Tools = maps.Clone(rec.Tools)
	return rec, ok, nil
}

func (s *MemoryTrustStore) Put(_ context.Context, rec TrustRecord) error {
	if rec.Server == "" {
		return fmt.Errorf("trust record without a server name")
	}
	rec.Tools = maps.Clone(rec.Tools)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs[rec.Server] = rec
	return nil
}

// list returns every record, by server name.
func (s *MemoryTrustStore) list() []TrustRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TrustRecord, 0, len(s.recs))
	for _, name := range slices.Sorted(maps.Keys(s.recs)) {
		rec := s.recs[name]
		rec.Tools = maps.Clone(rec.Tools)
		out = append(out, rec)
	}
	return out
}

func (s *MemoryTrustStore) Delete(_ context.Context, server string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.recs, server)
	return nil
}

// toolHash covers everything the server says about a tool that could change
// what the model does with it or how the gate classifies it: name, title,
// description, input and output schema and annotations (readOnlyHint
// included, since flipping it would turn a call into a read).
func toolHash(name, title, description string, inputSchema, outputSchema json.RawMessage, annotations json.RawMessage) string {
	payload, _ := json.Marshal(struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"input_schema"`
		OutputSchema json.RawMessage `json:"output_schema,omitempty"`
		Annotations  json.RawMessage `json:"annotations,omitempty"`
	}{name, title, description, canonicalJSON(inputSchema), canonicalJSON(outputSchema), canonicalJSON(annotations)})
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:])
}

// canonicalJSON re-encodes so key order and whitespace do not change a hash.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}
