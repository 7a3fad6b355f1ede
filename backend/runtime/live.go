package runtime

import (
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
)

// live holds the settings a user can change while the service runs (the
// Settings screen): the model and the defaults of new sessions. They sit
// behind their own lock so a save never waits for a turn; a turn takes the
// provider once when it starts, so a running turn finishes on the old model.
type live struct {
	provider model.Provider
	demo     bool
	approval policy.ApprovalPolicy
	sandbox  policy.SandboxPolicy
}

// SetModel switches the model new turns use; nil means none is configured.
func (s *Service) SetModel(p model.Provider, demo bool) {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	s.live.provider, s.live.demo = p, demo
}

// SetDefaults changes the approval policy and sandbox new sessions start
// with; existing sessions keep theirs.
func (s *Service) SetDefaults(approval policy.ApprovalPolicy, sandbox policy.SandboxPolicy) {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	s.live.approval, s.live.sandbox = approval, sandbox
}

func (s *Service) current() live {
	s.liveMu.RLock()
	defer s.liveMu.RUnlock()
	return s.live
}

// modelName is how events and Info name a provider's model.
func modelName(p model.Provider) string { return p.Name() + ":" + p.Model() }
