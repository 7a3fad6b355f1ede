package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// reservation is a session ReserveSession promised: what its row and its
// SessionCreated event will say, and the workspace it belongs to.
type reservation struct {
	n       NewSession
	wsID    string
	enc     []encoded
	session Session
}

// ReserveSession is CreateSession for a session that may stay empty: it
// returns the session at once, and the session's row and SessionCreated
// event are written by the transaction of the first event appended to it
// (by Append or any method that records in the session), so a one-shot
// call pays one commit instead of two. Until then Session returns the
// reserved session and the session lists do not show it; a session nothing
// was appended to is never written, and is gone with the process. The
// workspace is looked up now and created (a write of its own) only when it
// is new, so its ID is the real one from the start: grants and trust read
// with it find what is recorded for the workspace.
func (s *Store) ReserveSession(ctx context.Context, n NewSession) (Session, error) {
	if n.ID != "" {
		if _, err := s.Session(ctx, n.ID); err == nil {
			return Session{}, fmt.Errorf("store: reserve session %s: it exists already", n.ID)
		}
	}
	n, enc, err := s.prepareSession(n)
	if err != nil {
		return Session{}, err
	}
	ws, err := s.Workspace(ctx, n.Workspace)
	if errors.Is(err, ErrNotFound) {
		ws, err = s.EnsureWorkspace(ctx, n.Workspace)
	}
	if err != nil {
		return Session{}, err
	}
	now := time.UnixMilli(s.now().UnixMilli())
	r := reservation{n: n, wsID: ws.ID, enc: enc, session: Session{ID: n.ID, WorkspaceID: ws.ID, Workspace: ws.Path,
		ParentID: n.ParentID, Title: n.Title, Approval: n.Approval, Sandbox: n.Sandbox, Planning: n.Planning,
		CreatedAt: now, UpdatedAt: now}}
	s.resMu.Lock()
	defer s.resMu.Unlock()
	if _, taken := s.reserved[n.ID]; taken {
		return Session{}, fmt.Errorf("store: reserve session %s: already reserved", n.ID)
	}
	if s.reserved == nil {
		s.reserved = make(map[string]reservation)
	}
	s.reserved[n.ID] = r
	return r.session, nil
}

// settled forgets the reservation of a session that is written: read back
// from the file, it is a session like any other.
func (s *Store) settled(id string) {
	s.resMu.Lock()
	delete(s.reserved, id)
	s.resMu.Unlock()
}

func (s *Store) reservation(id string) (reservation, bool) {
	s.resMu.Lock()
	defer s.resMu.Unlock()
	r, ok := s.reserved[id]
	return r, ok
}

// createReservedTx writes a reserved session inside the transaction of its
// first append and returns its state; a session that is neither written nor
// reserved is not found. The reservation stays: a rolled-back transaction
// leaves the session unwritten, and the next append tries again.
func (s *Store) createReservedTx(ctx context.Context, tx *sql.Tx, id string) (sessionState, error) {
	r, ok := s.reservation(id)
	if !ok {
		return sessionState{id: id}, fmt.Errorf("store: session %s: %w", id, ErrNotFound)
	}
	if err := s.createSessionTx(ctx, tx, r.n, r.wsID, r.enc); err != nil {
		return sessionState{id: id}, err
	}
	return loadState(ctx, tx, id)
}
