package runtime

import "github.com/warden-dev/warden/backend/gate"

// SetNetwork replaces the network input (the [network] lists, the ask
// timeout) of every call that starts from now on: a Settings save applies
// without a restart. Commands already running keep what they started with.
func (s *Service) SetNetwork(n gate.NetworkConfig) { s.gate.SetNetwork(n) }
