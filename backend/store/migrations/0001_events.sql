-- Workspaces, sessions and the append-only, hash-chained event log.

CREATE TABLE workspaces (
    id         TEXT PRIMARY KEY,
    path       TEXT NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL
);

-- A session row is a projection of its own event stream (SessionCreated,
-- SessionRenamed, ApprovalPolicyChanged, SandboxPolicyChanged, Planning*),
-- kept in the same transaction as the events, plus the chain head.
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id),
    parent_id       TEXT NOT NULL DEFAULT '',
    title           TEXT NOT NULL DEFAULT '',
    approval_policy TEXT NOT NULL DEFAULT 'on-request',
    sandbox_policy  TEXT NOT NULL DEFAULT '{"kind":"workspace-write"}',
    planning        INTEGER NOT NULL DEFAULT 0,
    version         INTEGER NOT NULL DEFAULT 0,
    head_hash       BLOB NOT NULL,
    deleting        INTEGER NOT NULL DEFAULT 0,
    created_ms      INTEGER NOT NULL,
    updated_ms      INTEGER NOT NULL
);
CREATE INDEX sessions_workspace ON sessions(workspace_id, updated_ms);

-- hash = sha256(prev_hash || envelope), where envelope is the canonical JSON
-- {"data":payload,"kind":kind,"session_id":...,"time_ms":...,"version":...}.
-- audit marks the kinds of the permission audit (partial index below).
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    version    INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    time_ms    INTEGER NOT NULL,
    payload    TEXT NOT NULL,
    audit      INTEGER NOT NULL DEFAULT 0,
    prev_hash  BLOB NOT NULL,
    hash       BLOB NOT NULL,
    UNIQUE (session_id, version)
);
CREATE INDEX events_session_seq ON events(session_id, seq);
CREATE INDEX events_session_kind ON events(session_id, kind, seq);
CREATE INDEX events_session_audit ON events(session_id, seq) WHERE audit = 1;

-- The log is append-only. Only deleting a whole session (which first marks
-- it) may remove its events. The hash chain catches anyone who bypasses this.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
WHEN (SELECT deleting FROM sessions WHERE id = OLD.session_id) IS NOT 1
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

-- PermissionRequested events not yet answered by PermissionGranted or
-- PermissionDenied with the same request_id. Maintained by Append.
CREATE TABLE pending_requests (
    request_id TEXT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq        INTEGER NOT NULL REFERENCES events(seq),
    PRIMARY KEY (session_id, request_id)
);
