-- Records waiting to leave the machine over OpenTelemetry (backend/telemetry).
--
-- A row is queued in the same transaction as the event it points at, so a
-- committed event is either sent or still here, across crashes and restarts.
-- A sender leases rows (lease_until, ms) before sending and deletes them once
-- the collector acknowledged; a lease that runs out (the sender died) makes
-- the rows sendable again. prev_version is the version of the session's
-- previous queued event (0: none), exported with the record so a collector's
-- copy alone shows where records are missing.
CREATE TABLE telemetry_outbox (
    seq          INTEGER PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
    session_id   TEXT NOT NULL,
    version      INTEGER NOT NULL,
    prev_version INTEGER NOT NULL,
    queued_ms    INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    lease_until  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX telemetry_outbox_lease ON telemetry_outbox(lease_until, seq);

-- The session's last queued version: the next queued event's prev_version.
ALTER TABLE sessions ADD COLUMN telemetry_last INTEGER NOT NULL DEFAULT 0;

-- The export's counters and last outcome, one row, kept across restarts.
CREATE TABLE telemetry_state (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    sent            INTEGER NOT NULL DEFAULT 0,
    dropped         INTEGER NOT NULL DEFAULT 0,
    last_success_ms INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    last_error_ms   INTEGER NOT NULL DEFAULT 0
);
INSERT INTO telemetry_state(id) VALUES (1);
