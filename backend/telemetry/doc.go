// Package telemetry sends Warden's decisions off the machine as
// OpenTelemetry logs (OTLP/HTTP, the official Go SDK), with a few metrics,
// and checks a collector's copy against the local hash chain.
//
// # What leaves the machine
//
// One log record per event that says what was decided or what happened to
// a call (Exported lists the kinds): every permission decision (granted,
// denied) and ask, every tool result, network connection, grant added or
// revoked, axis and planning change, MCP trust change, undo or restore,
// archive, and the outbox's own drop notices. Each carries warden.*
// attributes (docs/telemetry.md lists them all), among them the deciding
// layer (warden.decision.layer) and the chain fields of the event it
// mirrors: warden.chain.seq (the event's version in its session),
// warden.chain.hash (its HMAC-SHA256 link) and warden.chain.prev_exported
// (the version of the session's previous exported event), so a collector's
// copy alone shows gaps, and against the local database shows edits.
//
// Never exported: prompts, model text, tool output, file contents. Call
// arguments travel as a SHA-256 and a size; the command text, paths and
// exact-command signatures only with log_arguments = true.
//
// # Nothing lost, nothing blocking
//
// The store queues a record in the same transaction as its event (the
// outbox, migration 5), so the tool-call path does one more INSERT and never
// waits for the network. A Sender drains the outbox in batches off that
// path: it leases a batch, exports it and deletes it once the collector
// acknowledged; a failure gives the batch back with exponential backoff. A
// restart sends what was not acknowledged. Delivery is at least once: a
// crash between the collector's acknowledgement and the delete sends those
// records again (same warden.chain.seq and hash; verify --against counts them
// as repeats, not as problems). A bound (records, age) drops the oldest
// sends and writes a TelemetryDropped event into each session concerned;
// the local chain keeps every event regardless.
package telemetry
