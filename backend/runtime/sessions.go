package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// CreateSessionArgs are CreateSession's arguments; nil axes take the
// service defaults.
type CreateSessionArgs struct {
	Workspace string                 `json:"workspace"`
	Title     string                 `json:"title,omitempty"`
	Approval  *policy.ApprovalPolicy `json:"approval,omitempty"`
	Sandbox   *Sandbox               `json:"sandbox,omitempty"`
}

// ResolveWorkspace makes dir absolute and resolves symlinks; it must be an
// existing directory.
func ResolveWorkspace(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("workspace is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %q is not a directory", dir)
	}
	return real, nil
}

// CreateSession starts a session in a workspace.
func (s *Service) CreateSession(ctx context.Context, a CreateSessionArgs) (Session, error) {
	ws, err := ResolveWorkspace(a.Workspace)
	if err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	l := s.current()
	n := store.NewSession{Workspace: ws, Title: a.Title, Approval: l.approval, Sandbox: l.sandbox}
	if a.Approval != nil {
		n.Approval = *a.Approval
	}
	if a.Sandbox != nil {
		n.Sandbox = a.Sandbox.Policy()
	}
	if n.Title == "" {
		n.Title = filepath.Base(ws)
	}
	ss, err := s.st.CreateSession(ctx, n)
	if err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	v := s.view(ctx, ss)
	s.hub.publish(Push{Type: PushSession, Session: &v})
	return v, nil
}

// ListSessions lists the top-level sessions, most recently updated first.
// Subagent sessions are reached through their parent's events.
func (s *Service) ListSessions(ctx context.Context) ([]Session, error) {
	all, err := s.st.Sessions(ctx, "")
	if err != nil {
		return nil, err
	}
	out := []Session{}
	for _, ss := range all {
		if ss.ParentID == "" {
			out = append(out, s.view(ctx, ss))
		}
	}
	return out, nil
}

// GetSession returns one session.
func (s *Service) GetSession(ctx context.Context, id string) (Session, error) {
	ss, err := s.st.Session(ctx, id)
	if err != nil {
		return Session{}, err
	}
	return s.view(ctx, ss), nil
}

// RenameSession changes a session's title.
func (s *Service) RenameSession(ctx context.Context, id, title string) (Session, error) {
	if title == "" {
		return Session{}, errors.New("rename session: title is empty")
	}
	ss, err := s.st.RenameSession(ctx, id, title)
	if err != nil {
		return Session{}, err
	}
	return s.publishSession(ctx, ss), nil
}

// DeleteSession cancels its turn and subagents, stops what lives with it
// and removes it with its subagent sessions.
func (s *Service) DeleteSession(ctx context.Context, id string) error {
	if _, err := s.st.Session(ctx, id); err != nil {
		return err
	}
	ids, err := s.descendants(ctx, id)
	if err != nil {
		return err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		sid := ids[i]
		s.stopSession(sid)
		for _, f := range s.cfg.OnSessionClose {
			f(sid)
		}
		if err := s.st.DeleteSession(ctx, sid); err != nil {
			return err
		}
		s.hub.publish(Push{Type: PushSessionDeleted, SessionID: sid})
	}
	return nil
}

// ArchiveSession is what Delete does in the window: the session's turn,
// subagents and monitors stop, and it leaves the list, but every event stays
// (the audit trail is kept and still verifies). RestoreSession undoes it;
// only DeleteSession (the explicit purge) destroys events.
func (s *Service) ArchiveSession(ctx context.Context, id string) (Session, error) {
	ids, err := s.descendants(ctx, id)
	if err != nil {
		return Session{}, err
	}
	if _, err := s.st.Session(ctx, id); err != nil {
		return Session{}, err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		s.stopSession(ids[i])
		for _, f := range s.cfg.OnSessionClose {
			f(ids[i])
		}
	}
	ss, err := s.st.SetArchived(ctx, id, true, "user")
	if err != nil {
		return Session{}, err
	}
	return s.publishSession(ctx, ss), nil
}

// RestoreSession brings an archived session back into the list.
func (s *Service) RestoreSession(ctx context.Context, id string) (Session, error) {
	ss, err := s.st.SetArchived(ctx, id, false, "user")
	if err != nil {
		return Session{}, err
	}
	return s.publishSession(ctx, ss), nil
}

// descendants returns id followed by every subagent session below it.
func (s *Service) descendants(ctx context.Context, id string) ([]string, error) {
	all, err := s.st.Sessions(ctx, "")
	if err != nil {
		return nil, err
	}
	out := []string{id}
	for i := 0; i < len(out); i++ {
		for _, ss := range all {
			if ss.ParentID == out[i] {
				out = append(out, ss.ID)
			}
		}
	}
	return out, nil
}

// SetApprovalPolicy changes the approval axis; pending asks are re-decided.
func (s *Service) SetApprovalPolicy(ctx context.Context, id string, a policy.ApprovalPolicy) (Session, error) {
	return s.updatePolicy(ctx, id, store.PolicyUpdate{Approval: &a, By: "user"})
}

// SetSandboxPolicy changes the sandbox axis; pending asks are re-decided.
func (s *Service) SetSandboxPolicy(ctx context.Context, id string, sb Sandbox) (Session, error) {
	p := sb.Policy()
	for _, r := range p.WritableRoots {
		if !filepath.IsAbs(r) {
			return Session{}, fmt.Errorf("writable root %q is not absolute", r)
		}
	}
	return s.updatePolicy(ctx, id, store.PolicyUpdate{Sandbox: &p, By: "user"})
}

// SetPlanning enters or leaves the planning freeze (human only).
func (s *Service) SetPlanning(ctx context.Context, id string, planning bool) (Session, error) {
	return s.updatePolicy(ctx, id, store.PolicyUpdate{Planning: &planning, By: "user"})
}

func (s *Service) updatePolicy(ctx context.Context, id string, u store.PolicyUpdate) (Session, error) {
	cur, err := s.st.Session(ctx, id)
	if err != nil {
		return Session{}, err
	}
	if cur.ParentID != "" {
		return Session{}, errors.New("a subagent inherits its parent's axes: change the parent session")
	}
	ss, err := s.st.UpdateSessionPolicy(ctx, id, u)
	if err != nil {
		return Session{}, err
	}
	ids, err := s.descendants(ctx, id)
	if err != nil {
		return Session{}, err
	}
	for _, sid := range ids {
		if ps, _, err := s.policySession(ctx, sid); err == nil {
			s.gate.Redecide(ctx, sid, ps)
		}
	}
	return s.publishSession(ctx, ss), nil
}

func (s *Service) publishSession(ctx context.Context, ss store.Session) Session {
	v := s.view(ctx, ss)
	s.hub.publish(Push{Type: PushSession, Session: &v})
	return v
}

// touch pushes the current view of a session (busy or pending changed).
func (s *Service) touch(id string) {
	ss, err := s.st.Session(s.ctx, id)
	if err != nil {
		return
	}
	s.publishSession(s.ctx, ss)
}

func (s *Service) view(ctx context.Context, ss store.Session) Session {
	v := Session{ID: ss.ID, ParentID: ss.ParentID, Workspace: ss.Workspace, Title: ss.Title, Approval: ss.Approval,
		Sandbox: sandboxView(ss.Sandbox), Planning: ss.Planning, Archived: ss.Archived, CreatedAt: ss.CreatedAt.UnixMilli(), UpdatedAt: ss.UpdatedAt.UnixMilli()}
	s.mu.Lock()
	_, v.Busy = s.turns[ss.ID]
	s.mu.Unlock()
	if p, err := s.st.PendingRequests(ctx, ss.ID); err == nil {
		v.Pending = len(p)
	}
	return v
}

// policySession is the engine's view of a session. A subagent takes its
// axes and freeze from its root session, so it can never be wider, and
// follows the root's changes live.
func (s *Service) policySession(ctx context.Context, id string) (policy.Session, store.Session, error) {
	ss, err := s.st.Session(ctx, id)
	if err != nil {
		return policy.Session{}, ss, err
	}
	root := ss
	for depth := 0; root.ParentID != "" && depth < 32; depth++ {
		if root, err = s.st.Session(ctx, root.ParentID); err != nil {
			return policy.Session{}, ss, fmt.Errorf("parent of %s: %w", ss.ID, err)
		}
	}
	now := s.cfg.Now()
	ps := policy.Session{Workspace: ss.Workspace, Approval: root.Approval, Sandbox: root.Sandbox, Planning: root.Planning,
		Caged: s.cfg.Caged(root.Sandbox), NetworkProxied: s.cfg.NetworkProxied(root.Sandbox), Now: now}
	for cur := ss; ; {
		recs, err := s.st.Grants(ctx, store.GrantFilter{WorkspaceID: cur.WorkspaceID, SessionID: cur.ID})
		if err != nil {
			return policy.Session{}, ss, err
		}
		for _, g := range store.PolicyGrants(recs, now) {
			if g.Scope == policy.ScopeSession || cur.ID == ss.ID {
				ps.Grants = append(ps.Grants, g)
			}
		}
		if cur.ParentID == "" {
			break
		}
		if cur, err = s.st.Session(ctx, cur.ParentID); err != nil {
			return policy.Session{}, ss, err
		}
	}
	return ps, ss, nil
}
