// Package store is Warden's persistence: one SQLite file (modernc.org/sqlite,
// pure Go, WAL) holding workspaces, sessions, the event log, memories, grants
// and MCP server trust.
//
// # The event log
//
// Every session has an append-only stream of typed events (see Event). There
// is exactly one way in: Append(ctx, sessionID, expectedVersion, events...).
// Versions count a session's events from 1; a caller that read version N and
// appends with expectedVersion N either wins or gets a *ConflictError, so two
// writers never interleave unknowingly. AnyVersion skips the check.
//
// Each event stores sha256(prev_hash || envelope), where envelope is the
// canonical JSON of {data, kind, session_id, time_ms, version} and the first
// event's prev_hash is 32 zero bytes. The session row records the head of its
// chain, so editing, reordering, inserting or cutting off events is caught by
// Verify. A person with write access to the file can rebuild a consistent
// chain; the chain makes tampering evident, it does not make it impossible.
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
