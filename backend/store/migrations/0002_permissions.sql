-- Workspace memories, grants and MCP server trust.

-- Key/value memories of a workspace. The "permission:" namespace mirrors the
-- workspace-scoped grants (the persistent rules) and is written only by the
-- grant methods, in the same transaction as the grants table.
CREATE TABLE memories (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    namespace    TEXT NOT NULL,
    key          TEXT NOT NULL,
    value        TEXT NOT NULL,
    updated_ms   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, namespace, key)
);

-- session_id is the session the grant was made in (for scope 'session' it is
-- also where the grant applies). expires_ms and revoked_ms are 0 for never.
CREATE TABLE grants (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    session_id   TEXT NOT NULL DEFAULT '',
    scope        TEXT NOT NULL CHECK (scope IN ('session', 'workspace')),
    signature    TEXT NOT NULL,
    reasons      TEXT NOT NULL,
    created_ms   INTEGER NOT NULL,
    expires_ms   INTEGER NOT NULL DEFAULT 0,
    revoked_ms   INTEGER NOT NULL DEFAULT 0,
    use_count    INTEGER NOT NULL DEFAULT 0,
    last_used_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX grants_workspace ON grants(workspace_id, scope, session_id);

-- A trusted MCP server: trust holds while the launch-config hash is unchanged
-- and per tool while its description/schema hash is unchanged.
CREATE TABLE mcp_trust (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    server       TEXT NOT NULL,
    config_hash  TEXT NOT NULL,
    tool_hashes  TEXT NOT NULL,
    trusted_ms   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, server)
);
