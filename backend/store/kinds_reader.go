package store

import "errors"

// UnsafeFinding is one change a call made that a program outside the cage
// would read as code or configuration.
type UnsafeFinding struct {
	Path   string `json:"path"`   // absolute
	Reader string `json:"reader"` // "git", "Mercurial", ... (backend/cage/readers' inventory)
	Why    string `json:"why"`
}

// UnsafeChangeReverted says that what a call changed would have run
// outside the cage (a gitdir git would take for one with a config or hooks,
// a hook git runs, sequencer state with an exec line, a file of the
// protected list reached through another path) and has been reverted from
// the call's checkpoint before the call returned. The model reads the same
// in the call's result; the chat shows it inline.
type UnsafeChangeReverted struct {
	event
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool,omitempty"`
	Workspace string          `json:"workspace"`
	Findings  []UnsafeFinding `json:"findings"`
	Reverted  []string        `json:"reverted,omitempty"` // workspace-relative paths put back
	Error     string          `json:"error,omitempty"`    // what could not be reverted, and why
}

func (u UnsafeChangeReverted) validate() error {
	switch {
	case u.CallID == "":
		return errors.New("call_id is empty")
	case len(u.Findings) == 0:
		return errors.New("no findings")
	}
	return nil
}
