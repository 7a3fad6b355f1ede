package runtime

import "github.com/warden-dev/warden/backend/tools"

// SetNetwork replaces the network input (the [network] lists, the ask
// timeout) of every call that starts from now on: a Settings save applies
// without a restart. Commands already running keep what they started with.
func (s *Service) SetNetwork(n tools.NetworkConfig) {
	if n.Resolve == nil {
		n.Resolve = s.cfg.Network.Resolve
	}
	s.network.Store(&n)
}

func (s *Service) networkConfig() tools.NetworkConfig {
	if n := s.network.Load(); n != nil {
		return *n
	}
	return s.cfg.Network
}
