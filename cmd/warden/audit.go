//go:build !wardenslim

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/auditexport"
	"github.com/warden-dev/warden/backend/telemetry"
	"github.com/warden-dev/warden/backend/termtext"
)

func auditCommand() command {
	return command{
		name:    "audit",
		summary: "verify, export or tail the event log (verify|export|tail)",
		run:     runAudit,
	}
}

func auditUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: warden audit <verify|export|tail> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "  verify   walk every hash chain (HMAC-SHA256 keyed with the audit key in the")
	fmt.Fprintln(w, "           config folder; plain SHA-256 before keying) and integrity-check the database;")
	fmt.Fprintln(w, "           --against FILE also compares an OpenTelemetry collector's copy with the chain")
	fmt.Fprintln(w, "  export   write one session's events as jsonl or csv")
	fmt.Fprintln(w, "  tail     print events as they are appended")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every subcommand takes --db PATH (or $WARDEN_DB).")
}

func runAudit(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 {
		auditUsage(io.err)
		return 2
	}
	switch args[0] {
	case "verify":
		return auditVerify(ctx, args[1:], io)
	case "export":
		return auditExport(ctx, args[1:], io)
	case "tail":
		return auditTail(ctx, args[1:], io)
	case "-h", "--help", "help":
		auditUsage(io.out)
		return 0
	}
	fmt.Fprintf(io.err, "warden audit: unknown subcommand %q\n\n", args[0])
	auditUsage(io.err)
	return 2
}

// parseFlags parses args, mapping -h to exit 0 and bad flags to exit 2.
func parseFlags(fs *flag.FlagSet, args []string, io stdio) (code int, ok bool) {
	fs.SetOutput(io.err)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

func auditVerify(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden audit verify", flag.ContinueOnError)
	db := addDBFlag(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	against := fs.String("against", "", "also compare with what an OpenTelemetry collector received: a file of OTLP JSON logs (the Collector's file exporter)")
	if code, ok := parseFlags(fs, args, io); !ok {
		return code
	}
	var copies []telemetry.Copy
	var others int
	if *against != "" {
		f, err := os.Open(*against)
		if err != nil {
			fmt.Fprintln(io.err, "warden audit verify:", err)
			return 1
		}
		copies, others, err = telemetry.ReadCopies(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(io.err, "warden audit verify: %s: %v\n", *against, err)
			return 1
		}
	}
	s, opened, err := assemble.OpenStore(ctx, db.path, store.MustExist())
	if err != nil {
		fmt.Fprintln(io.err, "warden audit verify:", err)
		return 1
	}
	keyPath, created := opened.KeyPath, opened.KeyCreated
	defer s.Close()
	rep, err := s.Verify(ctx)
	if err != nil {
		fmt.Fprintln(io.err, "warden audit verify:", err)
		return 1
	}
	if created && rep.Keyed.Events > 0 {
		fmt.Fprintf(io.err, "warden audit verify: there was no audit key at %s; a new one was made, and keyed events written with the old one cannot verify\n", keyPath)
	}
	var ag *telemetry.AgainstReport
	if *against != "" {
		r, err := telemetry.Against(ctx, s, copies)
		if err != nil {
			fmt.Fprintln(io.err, "warden audit verify:", err)
			return 1
		}
		r.File, r.Others = *against, others
		ag = &r
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			store.VerifyReport
			Key     string                   `json:"key"`
			Against *telemetry.AgainstReport `json:"against,omitempty"`
		}{rep, keyPath, ag})
	}
	chains := chainLines(rep, keyPath)
	agOK := ag == nil || ag.OK()
	if rep.OK() && agOK {
		if !*asJSON {
			fmt.Fprintf(io.out, "ok: %s\n  schema version %d, %d sessions, %d events\n  integrity_check ok, every hash chain verifies\n%s",
				rep.Path, rep.Schema, rep.Sessions, rep.Events, chains)
			if ag != nil {
				io.out.Write([]byte(againstLines(*ag)))
			}
		}
		return 0
	}
	if rep.OK() {
		fmt.Fprintf(io.err, "FAILED against %s: the local log verifies but the collector's copy does not match it\n%s", ag.File, againstLines(*ag))
		return 1
	}
	fmt.Fprintf(io.err, "FAILED: %s\n", rep.Path)
	if len(rep.Integrity) != 1 || rep.Integrity[0] != "ok" {
		fmt.Fprintf(io.err, "  integrity_check: %s\n", strings.Join(firstN(rep.Integrity, 5), "; "))
	}
	if bad, ok := rep.FirstBad(); ok {
		fmt.Fprintf(io.err, "  first bad event: %s\n", bad)
		if len(rep.Bad) > 1 {
			fmt.Fprintf(io.err, "  %d problems in all (run with --json to list them)\n", len(rep.Bad))
		}
	}
	fmt.Fprintf(io.err, "  checked %d sessions, %d events\n%s", rep.Sessions, rep.Events, chains)
	if ag != nil {
		io.err.Write([]byte(againstLines(*ag)))
	}
	return 1
}

// againstLines is the collector comparison in words: the totals, then each
// session's findings (the first few).
func againstLines(ag telemetry.AgainstReport) string {
	var b strings.Builder
	var matched, repeats, queued, dropped int
	for _, s := range ag.Sessions {
		matched, repeats, queued, dropped = matched+s.Matched, repeats+s.Repeats, queued+s.Queued, dropped+s.Dropped
	}
	fmt.Fprintf(&b, "  against %s: %d Warden records (%d other records ignored), %d match the local chain", ag.File, ag.Records, ag.Others, matched)
	if repeats > 0 {
		fmt.Fprintf(&b, ", %d delivered twice (identical)", repeats)
	}
	if queued > 0 {
		fmt.Fprintf(&b, ", %d still queued locally", queued)
	}
	if dropped > 0 {
		fmt.Fprintf(&b, ", %d dropped by the outbox bound (each with a notice in the log)", dropped)
	}
	b.WriteString("\n")
	for _, s := range ag.Sessions {
		if len(s.Findings) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  session %s: %d problems\n", s.SessionID, len(s.Findings))
		for i, f := range s.Findings {
			if i == 10 {
				fmt.Fprintf(&b, "    ... %d more (run with --json to list them)\n", len(s.Findings)-10)
				break
			}
			fmt.Fprintf(&b, "    seq %d: %s: %s\n", f.Seq, f.Problem, f.Detail)
		}
	}
	return b.String()
}

// chainLines says which kinds of chain the report checked: the keyed one
// (with where its key lives) and the plain sha256 one of events written
// before keying.
func chainLines(rep store.VerifyReport, keyPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  chain: HMAC-SHA256, keyed with %s: %d events in %d sessions\n", keyPath, rep.Keyed.Events, rep.Keyed.Sessions)
	if rep.Legacy.Events > 0 {
		fmt.Fprintf(&b, "  chain: plain SHA-256 (written before keying; pinned by the keyed session heads): %d events in %d sessions\n",
			rep.Legacy.Events, rep.Legacy.Sessions)
	}
	return b.String()
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("... %d more", len(s)-n))
	}
	return s
}

func auditExport(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden audit export", flag.ContinueOnError)
	db := addDBFlag(fs)
	session := fs.String("session", "", "session ID (required)")
	format := fs.String("format", "jsonl", "jsonl or csv")
	kinds := fs.String("kinds", "", "comma-separated event kinds to keep (default all)")
	perms := fs.Bool("permissions", false, "only the permission audit: the events the window's Export button saves (byte for byte the same file)")
	if code, ok := parseFlags(fs, args, io); !ok {
		return code
	}
	if *session == "" {
		fmt.Fprintln(io.err, "warden audit export: --session is required")
		return 2
	}
	if *perms && *kinds != "" {
		fmt.Fprintln(io.err, "warden audit export: --permissions and --kinds both choose the events; give one")
		return 2
	}
	if _, err := auditexport.ParseFormat(*format); err != nil {
		fmt.Fprintf(io.err, "warden audit export: --format %q: want jsonl or csv\n", *format)
		return 2
	}
	ks, err := parseKinds(*kinds)
	if err != nil {
		fmt.Fprintln(io.err, "warden audit export:", err)
		return 2
	}
	s, err := db.open(ctx, store.MustExist())
	if err != nil {
		fmt.Fprintln(io.err, "warden audit export:", err)
		return 1
	}
	defer s.Close()
	if _, err := s.Session(ctx, *session); err != nil {
		fmt.Fprintln(io.err, "warden audit export:", err)
		return 1
	}
	w, err := newEventWriter(io.out, *format)
	if err != nil {
		fmt.Fprintln(io.err, "warden audit export:", err)
		return 1
	}
	if *perms {
		evs, err := s.PermissionAudit(ctx, *session)
		if err == nil {
			for _, e := range evs {
				if err = w.write(e); err != nil {
					break
				}
			}
		}
		if err == nil {
			err = w.flush()
		}
		if err != nil {
			fmt.Fprintln(io.err, "warden audit export:", err)
			return 1
		}
		return 0
	}
	var after int64
	for {
		page, err := s.Events(ctx, store.EventQuery{SessionID: *session, Kinds: ks, AfterSeq: after, Limit: 1000})
		if err != nil {
			fmt.Fprintln(io.err, "warden audit export:", err)
			return 1
		}
		for _, e := range page {
			if err := w.write(e); err != nil {
				fmt.Fprintln(io.err, "warden audit export:", err)
				return 1
			}
			after = e.Seq
		}
		if len(page) < 1000 {
			break
		}
	}
	if err := w.flush(); err != nil {
		fmt.Fprintln(io.err, "warden audit export:", err)
		return 1
	}
	return 0
}

func parseKinds(list string) ([]store.Kind, error) {
	if list == "" {
		return nil, nil
	}
	known := map[store.Kind]bool{}
	for _, k := range store.Kinds() {
		known[k] = true
	}
	var out []store.Kind
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if !known[store.Kind(k)] {
			return nil, fmt.Errorf("unknown event kind %q", k)
		}
		out = append(out, store.Kind(k))
	}
	return out, nil
}

// eventWriter prints events in an export format (auditexport, the one the
// window and serve write too) or as one readable line each ("text").
type eventWriter struct {
	out io.Writer
	enc *auditexport.Encoder // nil for text
}

func newEventWriter(out io.Writer, format string) (*eventWriter, error) {
	w := &eventWriter{out: out}
	if format == "text" {
		// A payload holds tool output and model text: shown, never obeyed.
		w.out = termtext.NewWriter(out)
		return w, nil
	}
	f, err := auditexport.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	w.enc, err = auditexport.NewEncoder(out, f)
	return w, err
}

func (w *eventWriter) write(e store.StoredEvent) error {
	if w.enc != nil {
		return w.enc.Write(e)
	}
	// The layer column: what decided a permission or a connection ("-"
	// for other events).
	layer := "-"
	if l, _, ok := telemetry.LayerOf(e.Event); ok {
		layer = string(l)
	}
	_, err := fmt.Fprintf(w.out, "%s  %s  v%-4d %-26s %-9s %s\n", e.Time.UTC().Format("2006-01-02T15:04:05.000Z"),
		e.SessionID, e.Version, e.Kind, layer, e.Payload)
	return err
}

func (w *eventWriter) flush() error {
	if w.enc != nil {
		return w.enc.Close()
	}
	if tw, ok := w.out.(*termtext.Writer); ok {
		return tw.Flush()
	}
	return nil
}

func auditTail(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden audit tail", flag.ContinueOnError)
	db := addDBFlag(fs)
	session := fs.String("session", "", "only this session (default all)")
	kinds := fs.String("kinds", "", "comma-separated event kinds to keep (default all)")
	last := fs.Int("n", 10, "print this many existing events first")
	follow := fs.Bool("follow", true, "keep printing new events until interrupted")
	format := fs.String("format", "text", "text or jsonl")
	if code, ok := parseFlags(fs, args, io); !ok {
		return code
	}
	if *format != "text" && *format != "jsonl" {
		fmt.Fprintf(io.err, "warden audit tail: --format %q: want text or jsonl\n", *format)
		return 2
	}
	ks, err := parseKinds(*kinds)
	if err != nil {
		fmt.Fprintln(io.err, "warden audit tail:", err)
		return 2
	}
	s, err := db.open(ctx, store.MustExist())
	if err != nil {
		fmt.Fprintln(io.err, "warden audit tail:", err)
		return 1
	}
	defer s.Close()
	w, err := newEventWriter(io.out, *format)
	if err != nil {
		fmt.Fprintln(io.err, "warden audit tail:", err)
		return 1
	}
	recent, err := s.Events(ctx, store.EventQuery{SessionID: *session, Kinds: ks, Limit: max(*last, 1), Desc: true})
	if err != nil {
		fmt.Fprintln(io.err, "warden audit tail:", err)
		return 1
	}
	var cursor int64
	if len(recent) > 0 {
		cursor = recent[0].Seq
	}
	for i := min(len(recent), *last) - 1; i >= 0; i-- {
		w.write(recent[i])
	}
	if !*follow {
		return 0
	}
	sub, err := s.Subscribe(ctx, store.SubscribeFilter{SessionID: *session, Kinds: ks, AfterSeq: cursor})
	if err != nil {
		fmt.Fprintln(io.err, "warden audit tail:", err)
		return 1
	}
	for e := range sub.Events() {
		if err := w.write(e); err != nil {
			fmt.Fprintln(io.err, "warden audit tail:", err)
			return 1
		}
	}
	if err := sub.Err(); err != nil {
		fmt.Fprintln(io.err, "warden audit tail:", err)
		return 1
	}
	return 0
}
