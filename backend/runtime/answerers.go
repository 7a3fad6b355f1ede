package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/warden-dev/warden/backend/gate/lineup"
	"github.com/warden-dev/warden/backend/gate/remote"
)

// The answerers beside the human, as the front ends see them: each
// session's list and its last answers (Settings, the TUI's /answerers),
// the trust of a workspace's own answerers and hooks, and links that
// answer an ask from another device. The gate asks the answerers itself;
// the runtime only shows them and passes the human's trust on.

// AnswererBoard is the lineup of answerers and hooks (backend/gate/lineup).
type AnswererBoard interface {
	Board(ctx context.Context, sessionID, workspace string, last int, headless bool) (lineup.AnswererRoster, error)
	Trust(ctx context.Context, sessionID, workspace, role, name, configHash, programHash string) (lineup.AnswererEntry, error)
	Untrust(ctx context.Context, sessionID, role, name string) error
}

// RemoteLinker makes links that answer an ask from another device
// (backend/gate/remote).
type RemoteLinker interface {
	Make(ctx context.Context, requestID string) (remote.RemoteLink, error)
}

// ErrNoAnswerers: this process has no answerer lineup.
var ErrNoAnswerers = errors.New("answerers are not set up in this process")

// ErrNoRemote: this process makes no remote links.
var ErrNoRemote = errors.New("answering from another device is not set up in this process")

// AnswerersArgs asks for a session's answerers.
type AnswerersArgs struct {
	SessionID string `json:"session_id"`
	// Last is how many of the newest answers to list (0: 20).
	Last int `json:"last,omitempty"`
}

// Answerers lists a session's answerers and hooks with their state, and
// their last answers, newest first.
func (s *Service) Answerers(ctx context.Context, a AnswerersArgs) (lineup.AnswererRoster, error) {
	if s.cfg.Answerers == nil {
		return lineup.AnswererRoster{SessionID: a.SessionID, Entries: []lineup.AnswererEntry{}, Last: []lineup.AnswererRecord{}, HumanLast: "you"}, nil
	}
	ss, err := s.st.Session(ctx, a.SessionID)
	if err != nil {
		return lineup.AnswererRoster{}, err
	}
	last := a.Last
	if last <= 0 {
		last = 20
	}
	return s.cfg.Answerers.Board(ctx, ss.ID, ss.Workspace, last, s.cfg.Headless)
}

// TrustAnswererArgs trusts (or, with Untrust, stops trusting) one of a
// workspace's answerers or hooks. ConfigHash and ProgramHash are what the
// human was shown: a file changed since then is refused.
type TrustAnswererArgs struct {
	SessionID   string `json:"session_id"`
	Role        string `json:"role" ts:"'answerer' | 'hook'"`
	Name        string `json:"name"`
	ConfigHash  string `json:"config_hash,omitempty"`
	ProgramHash string `json:"program_hash,omitempty"`
	Untrust     bool   `json:"untrust,omitempty"`
}

// TrustAnswerer is the human's trust in one of a workspace's answerers or
// hooks, as its config and program file are now; recorded in the log.
func (s *Service) TrustAnswerer(ctx context.Context, a TrustAnswererArgs) (lineup.AnswererRoster, error) {
	if s.cfg.Answerers == nil {
		return lineup.AnswererRoster{}, ErrNoAnswerers
	}
	if a.Role != lineup.RoleAnswerer && a.Role != lineup.RoleHook {
		return lineup.AnswererRoster{}, fmt.Errorf("role %q is not answerer or hook", a.Role)
	}
	ss, err := s.st.Session(ctx, a.SessionID)
	if err != nil {
		return lineup.AnswererRoster{}, err
	}
	if a.Untrust {
		err = s.cfg.Answerers.Untrust(ctx, ss.ID, a.Role, a.Name)
	} else {
		_, err = s.cfg.Answerers.Trust(ctx, ss.ID, ss.Workspace, a.Role, a.Name, a.ConfigHash, a.ProgramHash)
	}
	if err != nil {
		return lineup.AnswererRoster{}, err
	}
	s.touch(ss.ID)
	return s.Answerers(ctx, AnswerersArgs{SessionID: ss.ID})
}

// RemoteLinkArgs names the ask to answer from another device.
type RemoteLinkArgs struct {
	RequestID string `json:"request_id"`
}

// RemoteLink makes a single-use, short-lived link (URL and QR code) that
// answers one live ask, Allow once or Deny, from another device.
func (s *Service) RemoteLink(ctx context.Context, a RemoteLinkArgs) (remote.RemoteLink, error) {
	if s.cfg.Remote == nil {
		return remote.RemoteLink{}, ErrNoRemote
	}
	return s.cfg.Remote.Make(ctx, a.RequestID)
}
