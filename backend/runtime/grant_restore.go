package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/warden-dev/warden/backend/store"
)

// RestoreGrantArgs name a revoked grant or workspace rule to give back.
type RestoreGrantArgs struct {
	SessionID string `json:"session_id"`
	ID        string `json:"id"`
}

// RestoreGrant is the Undo of a Revoke (human only): the revoked grant or
// rule is granted again exactly as it was — signature, scope, reasons,
// expiry — as a new grant with its own GrantAdded event, so the audit trail
// shows the revoke and the re-grant. A grant that has expired meanwhile, or
// a session grant of another session, is not given back. An MCP trust is
// given back with TrustMcpServer.
func (s *Service) RestoreGrant(ctx context.Context, a RestoreGrantArgs) (GrantView, error) {
	ss, err := s.st.Session(ctx, a.SessionID)
	if err != nil {
		return GrantView{}, err
	}
	g, err := s.st.Grant(ctx, a.ID)
	if err != nil {
		return GrantView{}, err
	}
	switch {
	case g.RevokedAt.IsZero():
		return GrantView{}, fmt.Errorf("restore grant %s: it is not revoked", a.ID)
	case g.WorkspaceID != ss.WorkspaceID:
		return GrantView{}, fmt.Errorf("restore grant %s: %w", a.ID, store.ErrNotFound)
	case g.Scope == "session" && g.SessionID != a.SessionID:
		return GrantView{}, fmt.Errorf("restore grant %s: it belongs to another session: %w", a.ID, store.ErrNotFound)
	case !g.ExpiresAt.IsZero() && !s.cfg.Now().Before(g.ExpiresAt):
		return GrantView{}, errors.New("restore grant: it has expired since; answer the next ask again")
	}
	// A second Undo of the same revoke gives back the grant the first made.
	live, err := s.st.Grants(ctx, store.GrantFilter{WorkspaceID: ss.WorkspaceID, SessionID: a.SessionID})
	if err != nil {
		return GrantView{}, err
	}
	for _, l := range live {
		if l.Active(s.cfg.Now()) && l.Signature == g.Signature && l.Scope == g.Scope && slices.Equal(l.Reasons, g.Reasons) &&
			l.ExpiresAt.Equal(g.ExpiresAt) {
			return grantView(l), nil
		}
	}
	n, err := s.st.AddGrant(ctx, store.NewGrant{WorkspaceID: g.WorkspaceID, SessionID: a.SessionID, Signature: g.Signature,
		Scope: g.Scope, Reasons: g.Reasons, ExpiresAt: g.ExpiresAt})
	if err != nil {
		return GrantView{}, err
	}
	s.touch(a.SessionID)
	return grantView(n), nil
}
