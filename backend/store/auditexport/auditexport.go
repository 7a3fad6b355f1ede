// Package auditexport is the one file format of an exported audit, written
// by the window's Export button (app/), `warden serve` (both through
// runtime.Service.ExportAudit) and `warden audit export`: the same
// encoder, so a file says the same thing whoever wrote it.
//
// JSON lines: one store.StoredEvent per line, exactly as stored (seq,
// session, version, kind, time, payload, hash), so `warden audit verify`
// style checks can be redone on an export. CSV: one row per event with the
// stored columns first and then the permission columns a spreadsheet user
// reads (tool, signature, decision, source or reason, detail), filled for
// permission events and empty for the others; the last column is the raw
// payload.
package auditexport

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/warden-dev/warden/backend/store"
)

// Format is a file format of the export.
type Format string

const (
	JSONL Format = "jsonl"
	CSV   Format = "csv"
)

// ParseFormat accepts the format names, exactly.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case JSONL, CSV:
		return Format(s), nil
	}
	return "", fmt.Errorf("format %q is not jsonl or csv", s)
}

// CSVHeader names the CSV columns, in order.
var CSVHeader = []string{"seq", "session_id", "version", "time", "kind", "hash",
	"tool", "signature", "decision", "source_or_reason", "detail", "data"}

// Encoder writes events in one format. Close flushes; nothing is complete
// before it.
type Encoder struct {
	format Format
	out    io.Writer
	csv    *csv.Writer
	err    error
}

// NewEncoder starts an export (the CSV header is written at once).
func NewEncoder(out io.Writer, f Format) (*Encoder, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, err
	}
	e := &Encoder{format: f, out: out}
	if f == CSV {
		e.csv = csv.NewWriter(out)
		e.err = e.csv.Write(CSVHeader)
	}
	return e, e.err
}

// Write adds one event.
func (e *Encoder) Write(ev store.StoredEvent) error {
	if e.err != nil {
		return e.err
	}
	if e.format == JSONL {
		b, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("auditexport: event %d: %w", ev.Seq, err)
		}
		_, e.err = e.out.Write(append(b, '\n'))
		return e.err
	}
	var p struct {
		Tool      string `json:"tool"`
		Signature string `json:"signature"`
		Source    string `json:"source"`
		Reason    string `json:"reason"`
		Detail    string `json:"detail"`
	}
	// A payload that is not an object leaves the permission columns empty;
	// the raw payload is still in "data".
	_ = json.Unmarshal(ev.Payload, &p)
	why := p.Source
	if why == "" {
		why = p.Reason
	}
	e.err = e.csv.Write([]string{strconv.FormatInt(ev.Seq, 10), ev.SessionID, strconv.FormatInt(ev.Version, 10),
		ev.Time.UTC().Format(time.RFC3339Nano), string(ev.Kind), fmt.Sprintf("%x", ev.Hash),
		p.Tool, p.Signature, Decision(ev.Kind), why, p.Detail, string(ev.Payload)})
	return e.err
}

// Close flushes the export and reports the first error.
func (e *Encoder) Close() error {
	if e.csv != nil {
		e.csv.Flush()
		if e.err == nil {
			e.err = e.csv.Error()
		}
	}
	return e.err
}

// Decision is the verdict a permission event records: ask, allow or deny;
// "" for other events.
func Decision(k store.Kind) string {
	switch k {
	case store.KindPermissionRequested:
		return "ask"
	case store.KindPermissionGranted:
		return "allow"
	case store.KindPermissionDenied:
		return "deny"
	}
	return ""
}

// Filename is the suggested name of a session's export.
func Filename(sessionID string, f Format) string {
	return fmt.Sprintf("warden-audit-%s.%s", sessionID, f)
}
