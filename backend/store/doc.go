// Package store is Warden's persistence: one SQLite file (WAL) holding
// workspaces, sessions, the event log, memories, grants and MCP server trust.
//
// # The engine
//
// The engine is the C SQLite (3.54), compiled from the amalgamation that
// github.com/mattn/go-sqlite3 bundles: its version is pinned by go.sum and is
// the same in every build (CLI, desktop app, tests, -race). Every binary that
// imports this package therefore needs cgo and a C compiler to build, and
// links only libc at run time. It replaced the transpiled modernc.org/sqlite,
// whose package inits, page faults, slow statement parsing and deep stacks
// made a one-shot `warden tool` process cost about 1.25x the CPU it costs
// now (with the statement cache of dsn in store.go). Debian's libsqlite3
// (-tags libsqlite3) was measured as well and not taken: the same speed, but
// a tag every go command would have to carry, and a forgotten one silently
// builds the bundled engine instead. nocgo.go turns a CGO_ENABLED=0 build into
// a compile error rather than a binary whose every Open fails.
//
// # The event log
//
// Every session has an append-only stream of typed events (see Event). There
// is exactly one way in: Append(ctx, sessionID, expectedVersion, events...).
// Versions count a session's events from 1; a caller that read version N and
// appends with expectedVersion N either wins or gets a *ConflictError, so two
// writers never interleave unknowingly. AnyVersion skips the check.
//
// Each event stores HMAC-SHA256(event key, prev_hash || envelope), where
// envelope is the canonical JSON of {data, kind, session_id, time_ms,
// version} and the first event's prev_hash is 32 zero bytes. The key is
// derived from the installation's audit key, which Open takes and which
// lives outside the database (package auditkey: audit.key in Warden's
// config folder). The session row records the head of its chain and a MAC
// over (id, version, chain_from, head) under a second derived key, so
// editing, reordering, inserting or cutting off events is caught by
// Verify, and so is a consistent rewrite that recomputes every link: without
// the key nobody can compute a link or a head that verifies. An append to a
// session whose head does not verify is refused, so the next write cannot
// launder a tampered head into a valid one.
//
// Databases written before keying (schema 2) keep their plain
// sha256(prev_hash || envelope) links: events.chain records each event's
// kind (0 plain, 1 keyed), and migration 3 sets every existing session's
// chain_from past its last event and MACs its head, which pins the keyless
// prefix: it can no more be rewritten, widened or cut than a keyed chain.
// What the chain cannot catch: someone holding the key, and the removal of
// a whole session (rows and events together) or the restore of an older
// copy of the file — there is no anchor outside the file to compare with.
//
// Session rows (title, approval and sandbox policy, planning flag) and the
// set of pending permission requests are projections of the log, updated in
// the same transaction as the events that change them. Changing a session's
// policy therefore always leaves an event behind.
//
// # Durability
//
// The database runs in WAL mode. An Append that contains any event other
// than streamed output commits with synchronous=FULL: when it returns, the
// transaction is in the fsynced WAL and survives a process crash and a power
// cut. Appends made only of ToolOutput and MonitorEvent chunks commit with
// synchronous=NORMAL: they survive a process crash (SIGKILL) but the last
// ones may be lost in a power cut, until the next durable commit or
// checkpoint fsyncs them. Measured on the 2-core development machine, a
// durable single append takes 1.6-2.5 ms of wall time, mostly the fsync; a
// relaxed one only its CPU time, about 0.3 ms, which is what lets shell
// output stream through the log. Every other write (sessions,
// grants, memories, trust) is durable. A batch passed to one Append call is
// one transaction (group commit): bulk writers reach tens of thousands of
// events per second.
//
// # Concurrency
//
// A Store is safe for concurrent use. Writes go through one connection and
// start with BEGIN IMMEDIATE, so in-process writers queue in Go and other
// processes sharing the file wait on the busy timeout instead of failing.
// Reads use a separate pool and never block writers.
//
// # Live tail
//
// Subscribe is must-deliver, not lossy: a subscription reads from the
// database with a cursor, woken by commits in this process and by a short
// poll for commits made by other processes. A slow reader never blocks
// writers and never misses an event; it only falls behind.
package store
