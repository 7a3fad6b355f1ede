package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/auditkey"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		args []string
		err  string
	}{
		{name: "defaults", args: []string{"-db", "x.db"}},
		{name: "no db", args: nil, err: "-db is required"},
		{name: "negative rows", args: []string{"-db", "x.db", "-rows", "-1"}, err: "negative"},
		{name: "zero batch", args: []string{"-db", "x.db", "-batch", "0"}, err: "at least 1"},
		{name: "relative workspace", args: []string{"-db", "x.db", "-workspace", "app"}, err: "not an absolute path"},
		{name: "stray argument", args: []string{"-db", "x.db", "more"}, err: "unexpected argument"},
		{name: "unknown flag", args: []string{"-size", "3"}, err: "flags: -db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(c.args)
			if c.err == "" && err != nil {
				t.Fatalf("parse: %v", err)
			}
			if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("parse error %v, want one containing %q", err, c.err)
			}
		})
	}
}

// The seeded session lists exactly the asked number of rows, carries every
// decision the audit shows, and its hash chain verifies.
func TestSeed(t *testing.T) {
	cases := []struct {
		name  string
		rows  int
		batch int
	}{
		{name: "empty session", rows: 0, batch: 100},
		{name: "one row", rows: 1, batch: 100},
		{name: "batch smaller than a call", rows: 500, batch: 1},
		{name: "several batches", rows: 3000, batch: 250},
		{name: "a count that ends inside a call", rows: 1003, batch: 100},
		{name: "another odd count", rows: 2999, batch: 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db := filepath.Join(t.TempDir(), "seed.db")
			var out bytes.Buffer
			err := run(ctx, []string{"-db", db, "-rows", strconv.Itoa(c.rows), "-batch", strconv.Itoa(c.batch)}, &out)
			if err != nil {
				t.Fatal(err)
			}
			var r result
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("output %q: %v", out.String(), err)
			}
			s, err := store.Open(ctx, db, installationKey(t))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			all, err := s.Events(ctx, store.EventQuery{SessionID: r.SessionID})
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[store.Kind]int{}
			rows := 0
			for _, e := range all {
				kinds[e.Kind]++
				if listed[e.Kind] {
					rows++
				}
			}
			if rows != c.rows || r.Rows != c.rows || len(all) != r.Events {
				t.Fatalf("listed %d (reported %d), events %d (reported %d); want %d rows", rows, r.Rows, len(all), r.Events, c.rows)
			}
			if c.rows >= 3000 {
				for _, k := range []store.Kind{store.KindPermissionRequested, store.KindPermissionGranted, store.KindPermissionDenied,
					store.KindToolInvocationStarted, store.KindToolInvocationCompleted, store.KindToolInvocationFailed,
					store.KindToolOutput, store.KindMessageAppended} {
					if kinds[k] == 0 {
						t.Errorf("no %s event in %d rows: %v", k, c.rows, kinds)
					}
				}
			}
			// No call is left running: a server opening the log would end
			// it and list one row more than asked.
			if open, err := s.UnfinishedInvocations(ctx); err != nil || len(open) != 0 {
				t.Fatalf("calls left running: %d (%v)", len(open), err)
			}
			rep, err := s.Verify(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Bad) > 0 || len(rep.Integrity) != 1 || rep.Integrity[0] != "ok" {
				t.Fatalf("verify: %+v", rep)
			}
		})
	}
}

// Every decision in the mix carries the trace the engine wrote, and the
// three verdicts all occur.
func TestMixDecisions(t *testing.T) {
	m := newMix("/home/dev/app", 1)
	verdicts := map[string]int{}
	for i, d := range m.decisions {
		if len(d.Trace) == 0 || d.Signature == "" {
			t.Errorf("%s: decision without trace or signature: %+v", m.calls[i].tool, d)
		}
		verdicts[string(d.Verdict)]++
	}
	for _, v := range []string{"allow", "ask", "deny"} {
		if verdicts[v] == 0 {
			t.Errorf("no %s decision in the mix: %v", v, verdicts)
		}
	}
}

// A seed always gives the same log.
func TestMixDeterministic(t *testing.T) {
	a, b := newMix("/w", 7), newMix("/w", 7)
	for i := 0; i < 200; i++ {
		ea, eb := a.next(), b.next()
		ja, _ := json.Marshal(ea)
		jb, _ := json.Marshal(eb)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("call %d differs:\n%s\n%s", i, ja, jb)
		}
	}
}

func BenchmarkSeed10k(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		path := filepath.Join(b.TempDir(), "seed.db")
		s, err := store.Open(ctx, path, storetest.KeyFor(path))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := seed(ctx, s, options{rows: 10_000, workspace: "/w", title: "b", seed: 1, batch: 1000}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// parse never panics, and what it accepts is usable.
func FuzzParse(f *testing.F) {
	for _, a := range []string{"-db x.db", "-db x.db -rows 5 -batch 2", "-rows -3", "-db x.db -workspace rel", "--db=a -seed 9 extra", ""} {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, line string) {
		o, err := parse(strings.Fields(line))
		if err != nil {
			return
		}
		if o.db == "" || o.rows < 0 || o.batch < 1 || !filepath.IsAbs(o.workspace) || o.title == "" {
			t.Fatalf("parse(%q) accepted %+v", line, o)
		}
	})
}

// TestMain points the config folder, where run finds the installation's
// audit key, at a scratch folder: tests never create the user's key.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "auditseed-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// installationKey is the key run chained the seeded file with.
func installationKey(t *testing.T) store.Key {
	t.Helper()
	cfg, err := config.UserPath()
	if err != nil {
		t.Fatal(err)
	}
	key, err := auditkey.Load(auditkey.PathFor(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return key
}
