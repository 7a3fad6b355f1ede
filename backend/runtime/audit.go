package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/auditexport"
)

// PendingApprovals lists the asks waiting for a human ("" for every
// session), oldest first; after a restart they come back from the store.
func (s *Service) PendingApprovals(ctx context.Context, sessionID string) ([]Approval, error) {
	ps, err := s.gate.Pending(ctx, sessionID)
	for i := range ps {
		ps[i].Mcp = s.mcpInfo(ps[i].SessionID, ps[i].Effects)
	}
	return ps, err
}

// Answer applies a human's answer to one ask through the gate. It is
// idempotent; an unknown or stale request id is refused with a
// *RequestError. An ask restored from an earlier process is carried on
// here once answered (resume.go).
func (s *Service) Answer(ctx context.Context, a AnswerArgs) error {
	got, err := s.gate.Answer(ctx, a, s.trustOnAnswer)
	if err != nil {
		return err
	}
	if got.Restored {
		s.resumeRestored(ctx, got.Ask, a)
	}
	return nil
}

// trustOnAnswer is the gate's Before callback: the prompt's "Trust this
// server" answer trusts the MCP server before the answer is recorded.
func (s *Service) trustOnAnswer(ctx context.Context, p gate.Pending, a AnswerArgs) error {
	if a.TrustServer == "" {
		return nil
	}
	info := s.mcpInfo(p.SessionID, p.Effects)
	if info == nil {
		return errors.New("trust_server: this request is not an MCP tool call")
	}
	if a.TrustServer != "session" && a.TrustServer != "persistent" {
		return fmt.Errorf("trust_server %q is not session or persistent", a.TrustServer)
	}
	if s.cfg.TrustMcp == nil {
		return errors.New("trust_server: no MCP servers are configured in this process")
	}
	return s.cfg.TrustMcp(ctx, p.SessionID, info.Server, a.TrustServer == "persistent")
}

// SessionEvents pages a session's events forward, oldest first.
func (s *Service) SessionEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]Event, error) {
	if _, err := s.st.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: sessionID, AfterSeq: afterSeq, Limit: limit})
	if err != nil {
		return nil, err
	}
	return eventViews(evs), nil
}

// SessionEventsBefore returns the limit events just before beforeSeq, or
// the newest limit when beforeSeq is 0, oldest first: a long chat opens on
// its newest page and pages back only when the reader asks.
func (s *Service) SessionEventsBefore(ctx context.Context, sessionID string, beforeSeq int64, limit int) ([]Event, error) {
	if beforeSeq < 0 {
		return nil, fmt.Errorf("before_seq %d is negative", beforeSeq)
	}
	if limit <= 0 {
		return nil, fmt.Errorf("limit %d: a tail page needs a positive limit", limit)
	}
	if _, err := s.st.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: sessionID, BeforeSeq: beforeSeq, Limit: limit, Desc: true})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	return eventViews(evs), nil
}

// AuditLog pages a session's permission story backwards (newest page
// first, each page oldest first). No kinds means the permission audit set.
func (s *Service) AuditLog(ctx context.Context, sessionID string, kinds []string, limit int, beforeSeq int64) ([]Event, error) {
	if _, err := s.st.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	q := store.EventQuery{SessionID: sessionID, BeforeSeq: beforeSeq, Limit: limit, Desc: true}
	if len(kinds) == 0 {
		q.Kinds = AuditKinds()
	}
	known := map[store.Kind]bool{}
	for _, k := range store.Kinds() {
		known[k] = true
	}
	for _, k := range kinds {
		if !known[store.Kind(k)] {
			return nil, fmt.Errorf("unknown event kind %q", k)
		}
		q.Kinds = append(q.Kinds, store.Kind(k))
	}
	evs, err := s.st.Events(ctx, q)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	return eventViews(evs), nil
}

// AuditKinds are the kinds of the permission audit.
func AuditKinds() []store.Kind {
	return []store.Kind{store.KindPermissionRequested, store.KindPermissionGranted, store.KindPermissionDenied,
		store.KindApprovalPolicyChanged, store.KindSandboxPolicyChanged, store.KindPlanningEntered,
		store.KindPlanningExited, store.KindGrantAdded, store.KindGrantRevoked, store.KindMcpServerTrusted,
		store.KindMcpServerUntrusted}
}

// Export is a file for the user to save.
type Export struct {
	Filename string `json:"filename"`
	Content  string `json:"content"`
}

// ExportAudit renders a session's permission audit as JSON lines or CSV.
func (s *Service) ExportAudit(ctx context.Context, sessionID, format string) (Export, error) {
	if _, err := s.st.Session(ctx, sessionID); err != nil {
		return Export{}, err
	}
	evs, err := s.st.PermissionAudit(ctx, sessionID)
	if err != nil {
		return Export{}, err
	}
	f, err := auditexport.ParseFormat(format)
	if err != nil {
		return Export{}, err
	}
	var b bytes.Buffer
	enc, err := auditexport.NewEncoder(&b, f)
	if err != nil {
		return Export{}, err
	}
	for _, e := range evs {
		if err := enc.Write(e); err != nil {
			return Export{}, err
		}
	}
	if err := enc.Close(); err != nil {
		return Export{}, err
	}
	return Export{Filename: auditexport.Filename(sessionID, f), Content: b.String()}, nil
}

// ListGrants lists a session's grants, its workspace's rules and MCP trusts.
func (s *Service) ListGrants(ctx context.Context, sessionID string) ([]GrantView, error) {
	ss, err := s.st.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	recs, err := s.st.Grants(ctx, store.GrantFilter{WorkspaceID: ss.WorkspaceID, SessionID: ss.ID})
	if err != nil {
		return nil, err
	}
	out := []GrantView{}
	now := s.cfg.Now()
	for _, g := range recs {
		if !g.Active(now) {
			continue
		}
		v := GrantView{ID: g.ID, Kind: "grant", Signature: g.Signature, Scope: string(g.Scope), Reasons: g.Reasons,
			CreatedAt: g.CreatedAt.UnixMilli(), Uses: g.UseCount}
		if g.Scope == "workspace" {
			v.Kind = "rule"
		}
		if !g.ExpiresAt.IsZero() {
			v.ExpiresAt = g.ExpiresAt.UnixMilli()
		}
		out = append(out, v)
	}
	trusts, err := s.mcpGrants(ctx, ss)
	if err != nil {
		return nil, err
	}
	return append(out, trusts...), nil
}

// RevokeGrantArgs names what to revoke: a grant or rule by id, or an MCP
// server trust by its ListGrants id ("session:<server>" or
// "workspace:<server>") within the session's workspace.
type RevokeGrantArgs struct {
	ID        string `json:"id"`
	Kind      string `json:"kind" ts:"'grant' | 'rule' | 'mcp-server' | 'mcp-trust'"` // "mcp-trust" is the old name
	SessionID string `json:"session_id,omitempty"`
}

// RevokeGrant revokes a grant, rule or MCP trust (human only).
func (s *Service) RevokeGrant(ctx context.Context, a RevokeGrantArgs) error {
	switch a.Kind {
	case "grant", "rule", "":
		return s.st.RevokeGrant(ctx, a.ID, a.SessionID)
	case GrantKindMcpServer, "mcp-trust":
		return s.revokeMcp(ctx, a.SessionID, a.ID)
	}
	return fmt.Errorf("kind %q is not grant, rule or mcp-server", a.Kind)
}
