package lineup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/warden-dev/warden/backend/store"
)

// State is where an entry stands for a session.
type State string

// The states.
const (
	// StateActive: it answers (or runs).
	StateActive State = "active"
	// StateUntrusted: a workspace's entry the user has not trusted yet.
	StateUntrusted State = "untrusted"
	// StateChanged: a workspace's entry whose config or program changed
	// since the user trusted it (or that no longer loads).
	StateChanged State = "changed"
	// StateNotAllowed: the organisation does not allow its kind.
	StateNotAllowed State = "not-allowed"
	// StateBroken: it cannot be set up (a user's program is missing, a
	// reviewer's provider cannot start).
	StateBroken State = "broken"
	// StateLeftOut: an entry of the workspace file that is ignored (a
	// reviewer model there).
	StateLeftOut State = "left-out"
)

// AnswererEntry is one configured answerer or hook as Settings and the TUI list it.
type AnswererEntry struct {
	Role string `json:"role" ts:"'answerer' | 'hook'"`
	// Kind is command or model (answerers), before or after (hooks).
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Tier    string   `json:"tier" ts:"'user' | 'workspace'"`
	File    string   `json:"file,omitempty"`
	Command []string `json:"command,omitempty"`
	Model   string   `json:"model,omitempty"`
	Tools   []string `json:"tools,omitempty"`
	Timeout string   `json:"timeout,omitempty"`
	Budget  int      `json:"budget,omitempty"`
	State   State    `json:"state" ts:"'active' | 'untrusted' | 'changed' | 'not-allowed' | 'broken' | 'left-out'"`
	// Note says why it does not run (empty when it does).
	Note string `json:"note,omitempty"`
	// Status is a reviewer's own state for the session (its budget, its
	// circuit breaker).
	Status      string   `json:"status,omitempty"`
	ConfigHash  string   `json:"config_hash,omitempty"`
	ProgramHash string   `json:"program_hash,omitempty"`
	Paths       []string `json:"paths,omitempty"`
	// Program is the start of each program file the workspace brings, for
	// the human to read before trusting it (untrusted and changed only).
	Program []AnswererProgram `json:"program,omitempty"`
}

// ProgramFile is the start of one program file.
type AnswererProgram struct {
	Path      string `json:"path"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Answer is one recorded answer of an answerer or hook.
type AnswererRecord struct {
	Time      int64  `json:"time"`
	RequestID string `json:"request_id"`
	Tool      string `json:"tool"`
	Kind      string `json:"kind"`
	Name      string `json:"name,omitempty"`
	Answer    string `json:"answer"`
	Reason    string `json:"reason,omitempty"`
	LatencyMs int64  `json:"latency_ms"`
}

// AnswererRoster is a session's answerers and hooks, and their last answers.
type AnswererRoster struct {
	SessionID string          `json:"session_id"`
	Entries   []AnswererEntry `json:"entries"`
	// Last are the newest answers first.
	Last []AnswererRecord `json:"last"`
	// HumanLast says who answers what the answerers pass: "you", or in a
	// headless process "nobody: the ask is denied".
	HumanLast string `json:"human_last"`
}

// maxShown is how much of a program file the trust card shows.
const maxShown = 4 << 10

// Board lists the session's entries and its last answers (at most last).
func (l *Lineup) Board(ctx context.Context, sessionID, workspace string, last int, headless bool) (AnswererRoster, error) {
	b := AnswererRoster{SessionID: sessionID, Entries: []AnswererEntry{}, Last: []AnswererRecord{}, HumanLast: "you"}
	if headless {
		b.HumanLast = "nobody: with no human attached, an ask the answerers pass is denied"
	}
	for _, e := range l.entries(ctx, sessionID, workspace) {
		if e.State == StateUntrusted || e.State == StateChanged {
			e.Program = shown(e.Paths)
		}
		b.Entries = append(b.Entries, e.AnswererEntry)
	}
	if last <= 0 {
		return b, nil
	}
	evs, err := l.cfg.Store.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindAnswererAnswered},
		Desc: true, Limit: last})
	if err != nil {
		return b, err
	}
	for _, ev := range evs {
		if a, ok := ev.Event.(store.AnswererAnswered); ok {
			b.Last = append(b.Last, AnswererRecord{Time: ev.Time.UnixMilli(), RequestID: a.RequestID, Tool: a.Tool, Kind: a.Kind, Name: a.Name,
				Answer: a.Answer, Reason: a.Reason, LatencyMs: a.LatencyMs})
		}
	}
	return b, nil
}

func shown(paths []string) []AnswererProgram {
	var out []AnswererProgram
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		buf := make([]byte, maxShown+1)
		n, _ := f.Read(buf)
		f.Close()
		pf := AnswererProgram{Path: p, Text: string(buf[:min(n, maxShown)]), Truncated: n > maxShown}
		out = append(out, pf)
	}
	return out
}

// ErrNoSuchEntry: no workspace entry has that role and name.
var ErrNoSuchEntry = errors.New("no answerer or hook of this workspace has that name")

// Trust trusts a workspace's answerer or hook as its config and program
// are now, recorded in the session's log. The hashes the human was shown
// may be passed (expect*, "" skips the check): a file that changed since
// the card was drawn is refused, so the trust is for what was read.
func (l *Lineup) Trust(ctx context.Context, sessionID, workspace, role, name, expectConfig, expectProgram string) (AnswererEntry, error) {
	for _, e := range l.entries(ctx, sessionID, workspace) {
		if e.Tier != "workspace" || e.Role != role || e.Name != name {
			continue
		}
		if e.ConfigHash == "" || e.ProgramHash == "" {
			return e.AnswererEntry, fmt.Errorf("%s cannot be trusted as it is: %s", describe(role, e.Kind, name), e.Note)
		}
		if expectConfig != "" && expectConfig != e.ConfigHash || expectProgram != "" && expectProgram != e.ProgramHash {
			return e.AnswererEntry, fmt.Errorf("%s changed since it was shown to you: look at it again before trusting it", describe(role, e.Kind, name))
		}
		wsID, err := l.workspaceID(ctx, sessionID)
		if err != nil {
			return e.AnswererEntry, err
		}
		v, _ := json.Marshal(trustValue{ConfigHash: e.ConfigHash, ProgramHash: e.ProgramHash, Paths: e.Paths})
		if err := l.cfg.Store.TrustAnswerer(ctx, sessionID, wsID, store.AnswererTrusted{Role: role, Name: name, ConfigHash: e.ConfigHash,
			ProgramHash: e.ProgramHash}, string(v)); err != nil {
			return e.AnswererEntry, err
		}
		e.State, e.Note = StateActive, ""
		return e.AnswererEntry, nil
	}
	return AnswererEntry{}, fmt.Errorf("%s %q: %w", role, name, ErrNoSuchEntry)
}

// Untrust takes a trust back, recorded in the session's log.
func (l *Lineup) Untrust(ctx context.Context, sessionID, role, name string) error {
	wsID, err := l.workspaceID(ctx, sessionID)
	if err != nil {
		return err
	}
	return l.cfg.Store.UntrustAnswerer(ctx, sessionID, wsID, role, name)
}
