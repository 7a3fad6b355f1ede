package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"
)

// Event is one typed entry of a session's log. The set is closed: every kind
// is a struct in this package that embeds event and is registered once in
// kinds.go.
type Event interface{ isEvent() }

// event seals Event; embed it in every kind.
type event struct{}

func (event) isEvent() {}

// Kind names an event type on the wire and in the database.
type Kind string

type kindInfo struct {
	kind   Kind
	audit  bool // part of the permission audit
	stream bool // high-volume output: committed without fsync (see doc.go)
	quoted []byte
	decode func([]byte) (Event, error)
}

var (
	kindsByName = map[Kind]*kindInfo{}
	kindsByType = map[reflect.Type]*kindInfo{}
)

// register adds kind k with Go type T. It returns k so that registration and
// the exported Kind constant are one line.
func register[T Event](k Kind) Kind { return add[T](k, false, false) }

// registerAudit is register for kinds that belong to the permission audit.
func registerAudit[T Event](k Kind) Kind { return add[T](k, true, false) }

// registerStream is register for streamed output chunks, whose appends may
// skip the fsync.
func registerStream[T Event](k Kind) Kind { return add[T](k, false, true) }

func add[T Event](k Kind, audit, stream bool) Kind {
	t := reflect.TypeFor[T]()
	if _, dup := kindsByName[k]; dup {
		panic("store: kind registered twice: " + string(k))
	}
	info := &kindInfo{kind: k, audit: audit, stream: stream, quoted: jsonString(string(k)), decode: func(b []byte) (Event, error) {
		// Lenient on unknown fields: a newer build may add optional ones.
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, err
		}
		return v, nil
	}}
	kindsByName[k] = info
	kindsByType[t] = info
	return k
}

// KindOf returns the registered kind of e, or "" for nil.
func KindOf(e Event) Kind {
	if e == nil {
		return ""
	}
	t := reflect.TypeOf(e)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if info, ok := kindsByType[t]; ok {
		return info.kind
	}
	return ""
}

// Kinds lists every registered kind.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kindsByName))
	for k := range kindsByName {
		out = append(out, k)
	}
	return out
}

// envelope is the wire form of an event: {"kind": "...", "data": {...}}.
type envelope struct {
	Kind Kind            `json:"kind"`
	Data json.RawMessage `json:"data"`
}

// Encode returns the canonical {"kind","data"} JSON of e.
func Encode(e Event) ([]byte, error) {
	k, data, err := encodeData(e)
	if err != nil {
		return nil, err
	}
	return canonicalJSON(envelope{Kind: k, Data: data})
}

// Decode parses the {"kind","data"} JSON of one event. Unknown kinds,
// unknown fields and malformed JSON are errors.
func Decode(b []byte) (Event, error) {
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("store: decode event: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("store: decode event: trailing data")
	}
	if env.Kind == "" {
		return nil, errors.New(`store: decode event: missing "kind"`)
	}
	if len(env.Data) == 0 {
		return nil, fmt.Errorf(`store: decode %s event: missing "data"`, env.Kind)
	}
	return decodeData(env.Kind, env.Data)
}

func decodeData(k Kind, data []byte) (Event, error) {
	info, ok := kindsByName[k]
	if !ok {
		return nil, fmt.Errorf("store: unknown event kind %q", k)
	}
	e, err := info.decode(data)
	if err != nil {
		return nil, fmt.Errorf("store: decode %s event: %w", k, err)
	}
	return e, nil
}

// encodeData returns the kind and canonical data JSON of e, validated.
func encodeData(e Event) (Kind, []byte, error) {
	k := KindOf(e)
	if k == "" {
		return "", nil, fmt.Errorf("store: unregistered event type %T", e)
	}
	if v, ok := e.(interface{ validate() error }); ok {
		if err := v.validate(); err != nil {
			return "", nil, fmt.Errorf("store: invalid %s event: %w", k, err)
		}
	}
	data, err := canonicalJSON(e)
	if err != nil {
		return "", nil, fmt.Errorf("store: encode %s event: %w", k, err)
	}
	return k, data, nil
}

// StoredEvent is an event as read back from the log.
type StoredEvent struct {
	Seq       int64           // global order across sessions
	SessionID string          //
	Version   int64           // 1-based position in the session
	Kind      Kind            //
	Time      time.Time       // append time, millisecond precision
	Event     Event           // the decoded event
	Payload   json.RawMessage // canonical JSON of Event
	Hash      []byte          // sha256 link of the chain
}

// MarshalJSON is the export form: one object per event with the data inline.
func (e StoredEvent) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Seq       int64           `json:"seq"`
		SessionID string          `json:"session_id"`
		Version   int64           `json:"version"`
		Kind      Kind            `json:"kind"`
		Time      time.Time       `json:"time"`
		Data      json.RawMessage `json:"data"`
		Hash      string          `json:"hash"`
	}{e.Seq, e.SessionID, e.Version, e.Kind, e.Time.UTC(), e.Payload, fmt.Sprintf("%x", e.Hash)})
}

// canonicalJSON marshals v with sorted object keys, no insignificant
// whitespace and no HTML escaping, so equal values hash equally.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return canonicalize(raw)
}

// canonicalize rewrites a JSON document in canonical form. Numbers keep
// their literal text.
func canonicalize(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after JSON value")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
