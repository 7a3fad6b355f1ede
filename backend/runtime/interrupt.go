package runtime

import (
	"context"
	"fmt"

	"github.com/warden-dev/warden/backend/store"
	askm "github.com/warden-dev/warden/backend/tools/ask"
)

// interruptedByRestart is what an interrupted call's end says, in the
// stream, the audit and the model's next request.
const interruptedByRestart = "interrupted by a restart: Warden stopped while the call ran, so it did not finish; " +
	"it was not run again (check what it changed before calling it again)"

// interruptUnfinished ends every ask the last process left running (a call
// started and never ended because the process died): each moves through
// the machine's interrupt transition, recorded as its
// ToolInvocationFailed{via: interrupt}. Nothing is run again.
//
// Skipped with LeaveSessions: a `warden tool` beside a window must not
// end the window's running calls.
func (s *Service) interruptUnfinished(ctx context.Context) error {
	started, err := s.st.UnfinishedInvocations(ctx)
	if err != nil {
		return fmt.Errorf("runtime: unfinished calls: %w", err)
	}
	sessions := map[string]bool{}
	for _, e := range started {
		sessions[e.SessionID] = true
	}
	for id := range sessions {
		evs, err := s.st.Events(ctx, store.EventQuery{SessionID: id, Kinds: askKinds})
		if err != nil {
			return fmt.Errorf("runtime: unfinished calls of %s: %w", id, err)
		}
		s.asks.Load(evs)
		for _, a := range askm.Fold(evs).Asks {
			if a.State != askm.Running || a.RequestID == "" {
				continue
			}
			if _, err := s.asks.Step(ctx, a.ID, askm.Interrupt, store.ToolInvocationFailed{Error: interruptedByRestart}); err != nil {
				return fmt.Errorf("runtime: interrupt %s: %w", a.CallID, err)
			}
		}
	}
	return nil
}
