-- From this schema on the chain is keyed: every new event's hash is
-- HMAC-SHA256(event key, prev_hash || envelope) with a key derived from the
-- installation's audit key (a file in Warden's config folder, never in this
-- database). Events written before keep their plain sha256 hashes.
--
-- events.chain says which kind an event's hash is: 0 plain sha256 (written
-- before keying), 1 HMAC-SHA256. The default keeps old rows plain.
ALTER TABLE events ADD COLUMN chain INTEGER NOT NULL DEFAULT 0;

-- sessions.chain_from is the first version written keyed: 1 for sessions
-- created keyed, version+1 for sessions that existed when keying began.
-- sessions.head_mac is HMAC-SHA256(head key, id, version, chain_from,
-- head_hash), rewritten by every append: without the key nobody can move the
-- head (cut events off the end, rewrite a whole session as plain sha256) or
-- widen the keyless prefix. The Go step of this migration fills both for
-- existing sessions.
ALTER TABLE sessions ADD COLUMN chain_from INTEGER NOT NULL DEFAULT 1;
ALTER TABLE sessions ADD COLUMN head_mac BLOB NOT NULL DEFAULT x'';
