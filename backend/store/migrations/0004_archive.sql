-- Archived sessions: hidden from the list, their events kept (a delete in
-- the window archives; only an explicit purge removes events). The column is
-- a projection of SessionArchived / SessionRestored, like the axes.
ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
