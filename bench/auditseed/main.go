// Command auditseed writes one session holding N audit-trail rows, and the
// tool output and assistant messages between them, into a Warden database
// through the store's append API (so the hash chain is the real one). The
// audit trail's browser measurement (e2e/audit.e2e.mjs) opens it.
//
//	go run ./bench/auditseed -db /tmp/a.db -rows 100000
//
// It prints one JSON line: the session id and the counts written.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/warden-dev/warden/backend/auditkey"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/store"
)

type options struct {
	db        string
	rows      int
	workspace string
	title     string
	seed      uint64
	batch     int
}

// result is what the seeder printed, for scripts.
type result struct {
	SessionID string  `json:"session_id"`
	Rows      int     `json:"rows"`   // events the audit view lists
	Events    int     `json:"events"` // every event of the session, session_created included
	Seconds   float64 `json:"seconds"`
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "auditseed:", err)
		os.Exit(2)
	}
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("auditseed", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.db, "db", "", "database file to create or add to (required)")
	fs.IntVar(&o.rows, "rows", 100_000, "audit-trail rows to write")
	fs.StringVar(&o.workspace, "workspace", "/home/dev/app", "the session's workspace (absolute)")
	fs.StringVar(&o.title, "title", "", "session title (default: \"Audit <rows> rows\")")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the generator; a seed always gives the same log")
	fs.IntVar(&o.batch, "batch", 1000, "events per append transaction")
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%w (flags: -db -rows -workspace -title -seed -batch)", err)
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.db == "":
		return o, errors.New("-db is required")
	case o.rows < 0:
		return o, fmt.Errorf("-rows %d is negative", o.rows)
	case o.batch < 1:
		return o, fmt.Errorf("-batch %d must be at least 1", o.batch)
	case !filepath.IsAbs(o.workspace):
		return o, fmt.Errorf("-workspace %q is not an absolute path", o.workspace)
	}
	if o.title == "" {
		o.title = fmt.Sprintf("Audit %d rows", o.rows)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	// The installation's key, so `warden serve` on the seeded file can
	// append to it and `warden audit verify` checks it.
	cfg, err := config.UserPath()
	if err != nil {
		return err
	}
	key, _, err := auditkey.LoadOrCreate(auditkey.PathFor(cfg))
	if err != nil {
		return err
	}
	s, err := store.Open(ctx, o.db, key)
	if err != nil {
		return err
	}
	defer s.Close()
	r, err := seed(ctx, s, o)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(r)
}

// seed creates the session and appends calls until exactly o.rows listed
// events are written, in transactions of about o.batch events.
func seed(ctx context.Context, s store.API, o options) (result, error) {
	t0 := time.Now()
	sess, err := s.CreateSession(ctx, store.NewSession{Workspace: o.workspace, Title: o.title})
	if err != nil {
		return result{}, fmt.Errorf("create session: %w", err)
	}
	r := result{SessionID: sess.ID, Events: 1}
	m := newMix(o.workspace, o.seed)
	buf := make([]store.Event, 0, o.batch+16)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		if _, err := s.Append(ctx, sess.ID, store.AnyVersion, buf...); err != nil {
			return fmt.Errorf("append after %d rows: %w", r.Rows, err)
		}
		r.Events += len(buf)
		buf = buf[:0]
		return nil
	}
	for r.Rows < o.rows {
		// Calls are written whole: a call cut after its start would be a
		// call left running, which the next start of Warden ends (one
		// more row) — the log would not hold the asked count for long.
		// Near the end, a call that does not fit is drawn again; denials
		// (one row each) always fit.
		group := m.next()
		n := 0
		for _, e := range group {
			if listed[store.KindOf(e)] {
				n++
			}
		}
		if r.Rows+n > o.rows {
			continue
		}
		r.Rows += n
		buf = append(buf, group...)
		if len(buf) >= o.batch {
			if err := flush(); err != nil {
				return r, err
			}
		}
	}
	if err := flush(); err != nil {
		return r, err
	}
	r.Seconds = time.Since(t0).Seconds()
	return r, nil
}
