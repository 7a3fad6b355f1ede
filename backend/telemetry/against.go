package telemetry

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/backend/store"
)

// The check behind `warden audit verify --against FILE`: a collector's copy
// of the records against the local chain, session by session.

// Problem kinds of a check.
const (
	ProblemHash     = "hash-mismatch"   // the collector's hash differs from the local row's
	ProblemMissing  = "missing-locally" // the collector holds a record whose local row is gone
	ProblemGap      = "gap"             // a record's predecessor never reached the collector
	ProblemNotSent  = "not-delivered"   // a local row the collector never received
	ProblemConflict = "conflict"        // two copies of one record disagree
)

// Finding is one problem of a check, at one record.
type Finding struct {
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"` // warden.chain.seq, the version in the session
	Problem   string `json:"problem"`
	Detail    string `json:"detail"`
}

func (f Finding) String() string {
	return fmt.Sprintf("session %s seq %d: %s: %s", f.SessionID, f.Seq, f.Problem, f.Detail)
}

// SessionCheck is one session's outcome.
type SessionCheck struct {
	SessionID string    `json:"session_id"`
	Local     int       `json:"local"`    // exported kinds in the local log, from the check's start
	Received  int       `json:"received"` // distinct records in the collector's copy
	Matched   int       `json:"matched"`  // same seq, same hash
	Repeats   int       `json:"repeats"`  // extra identical copies (at-least-once delivery)
	Queued    int       `json:"queued"`   // still in the outbox: not sent yet, not a problem
	Dropped   int       `json:"dropped"`  // dropped by the outbox bound, with a notice in the log
	Findings  []Finding `json:"findings,omitempty"`
}

// AgainstReport is the whole check.
type AgainstReport struct {
	File     string         `json:"file"`
	Records  int            `json:"records"` // Warden records read
	Others   int            `json:"others"`  // other programs' records, ignored
	FromSeq  int64          `json:"from_event_seq"`
	Sessions []SessionCheck `json:"sessions"`
}

// OK reports whether nothing was found.
func (r AgainstReport) OK() bool {
	for _, s := range r.Sessions {
		if len(s.Findings) > 0 {
			return false
		}
	}
	return true
}

// Findings lists every finding, by session and seq.
func (r AgainstReport) Findings() []Finding {
	var out []Finding
	for _, s := range r.Sessions {
		out = append(out, s.Findings...)
	}
	return out
}

// LocalChain is what the check reads of the local database; *store.Store
// is one.
type LocalChain interface {
	ChainRows(ctx context.Context, pick func(store.Event) bool) ([]store.ChainRow, error)
	QueuedVersions(ctx context.Context) (map[string]map[int64]bool, error)
}

// Against compares copies with the local chain. The local rows expected at
// the collector are the exported kinds from the earliest event the copy
// holds on (what came before may predate the export); those still queued
// or dropped by the bound (each with its notice in the log) are counted,
// not reported.
func Against(ctx context.Context, local LocalChain, copies []Copy) (AgainstReport, error) {
	rep := AgainstReport{Records: len(copies)}
	rows, err := local.ChainRows(ctx, Exported)
	if err != nil {
		return rep, err
	}
	queued, err := local.QueuedVersions(ctx)
	if err != nil {
		return rep, err
	}
	for _, c := range copies {
		if c.EventSeq > 0 && (rep.FromSeq == 0 || c.EventSeq < rep.FromSeq) {
			rep.FromSeq = c.EventSeq
		}
	}
	type key struct {
		sid string
		seq int64
	}
	localBy := map[key]store.ChainRow{}
	dropped := map[key]bool{}
	sessions := map[string]*SessionCheck{}
	get := func(sid string) *SessionCheck {
		if sessions[sid] == nil {
			sessions[sid] = &SessionCheck{SessionID: sid}
		}
		return sessions[sid]
	}
	for _, r := range rows {
		localBy[key{r.SessionID, r.Version}] = r
		if d, ok := r.Event.(store.TelemetryDropped); ok {
			for _, v := range expandRanges(d.Versions) {
				dropped[key{r.SessionID, v}] = true
			}
		}
	}
	// The collector's copies: one per record, repeats counted.
	got := map[key]Copy{}
	for _, c := range copies {
		k := key{c.SessionID, c.Seq}
		sc := get(c.SessionID)
		if prev, ok := got[k]; ok {
			if prev.Hash == c.Hash {
				sc.Repeats++
			} else {
				sc.Findings = append(sc.Findings, Finding{c.SessionID, c.Seq, ProblemConflict,
					fmt.Sprintf("the collector holds two different records for it (hashes %s… and %s…, lines %d and %d)",
						short(prev.Hash), short(c.Hash), prev.Line, c.Line)})
			}
			continue
		}
		got[k] = c
		sc.Received++
		lr, ok := localBy[k]
		switch {
		case !ok:
			sc.Findings = append(sc.Findings, Finding{c.SessionID, c.Seq, ProblemMissing,
				fmt.Sprintf("the collector received a %s record (line %d) whose event is not in the local log: it was deleted locally", c.Kind, c.Line)})
		case hex.EncodeToString(lr.Hash) != c.Hash:
			sc.Findings = append(sc.Findings, Finding{c.SessionID, c.Seq, ProblemHash,
				fmt.Sprintf("the local %s event's hash %s… differs from the one the collector received (%s…, line %d): the local row was changed after it was sent",
					lr.Kind, short(hex.EncodeToString(lr.Hash)), short(c.Hash), c.Line)})
		default:
			sc.Matched++
		}
	}
	// Gaps, from the copy alone: each record names its session's previous
	// exported one.
	for k, c := range got {
		if c.PrevExported == 0 {
			continue
		}
		pk := key{k.sid, c.PrevExported}
		if _, ok := got[pk]; ok || dropped[pk] || queued[k.sid][c.PrevExported] {
			continue
		}
		get(k.sid).Findings = append(get(k.sid).Findings, Finding{k.sid, c.PrevExported, ProblemGap,
			fmt.Sprintf("seq %d names seq %d as the record before it, which never reached the collector", c.Seq, c.PrevExported)})
	}
	// Local rows the collector should have.
	for _, r := range rows {
		if rep.FromSeq == 0 || r.Seq < rep.FromSeq {
			continue
		}
		k := key{r.SessionID, r.Version}
		sc := get(r.SessionID)
		sc.Local++
		if _, ok := got[k]; ok {
			continue
		}
		switch {
		case queued[r.SessionID][r.Version]:
			sc.Queued++
		case dropped[k]:
			sc.Dropped++
		default:
			sc.Findings = append(sc.Findings, Finding{r.SessionID, r.Version, ProblemNotSent,
				fmt.Sprintf("the local %s event (log seq %d) never reached the collector and is not queued", r.Kind, r.Seq)})
		}
	}
	for _, sc := range sessions {
		// A gap that is also a local row never sent is one problem.
		slices.SortFunc(sc.Findings, func(a, b Finding) int {
			return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Problem, b.Problem))
		})
		sc.Findings = slices.CompactFunc(sc.Findings, func(a, b Finding) bool {
			return a.Seq == b.Seq && (a.Problem == b.Problem || a.Problem == ProblemGap || b.Problem == ProblemGap)
		})
		rep.Sessions = append(rep.Sessions, *sc)
	}
	slices.SortFunc(rep.Sessions, func(a, b SessionCheck) int { return cmp.Compare(a.SessionID, b.SessionID) })
	return rep, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// expandRanges reads "3-7,9" back into versions; a malformed part is
// skipped (the notice is Warden's own writing).
func expandRanges(s string) []int64 {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(strings.TrimSpace(hi), 10, 64); err != nil || b < a || b-a > 1_000_000 {
				continue
			}
		}
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
	}
	return out
}
