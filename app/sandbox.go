package app

import (
	"context"

	"github.com/warden-dev/warden/backend/tools/sandbox"
)

// SandboxStatus says whether the OS sandbox works here, and if not, why.
type SandboxStatus struct {
	// Available is true when a trial run inside the sandbox succeeded.
	Available bool `json:"available"`
	// Mechanism names the sandbox, e.g. "bubblewrap".
	Mechanism string `json:"mechanism"`
	// Version is what the sandbox binary reports about itself, if it ran.
	Version string `json:"version"`
	// Detail is the reason when unavailable, or what was checked when available.
	Detail string `json:"detail"`
}

// CageProbe shows the window the one probe of the OS cage
// (sandbox.Cage.Detect, wired by backend/assemble), so the indicator says
// exactly what the engine is told as caged.
type CageProbe func(ctx context.Context) sandbox.Status

// Probe runs the cage's probe now.
func (p CageProbe) Probe(ctx context.Context) SandboxStatus {
	st := p(ctx)
	return SandboxStatus{Available: st.Available, Mechanism: st.Mechanism, Version: st.Version, Detail: st.Reason}
}

// noProbe stands in when main.go wired no probe: the window says so rather
// than claiming a sandbox nobody checked.
type noProbe struct{}

func (noProbe) Probe(context.Context) SandboxStatus {
	return SandboxStatus{Mechanism: "bubblewrap", Detail: "the sandbox was not probed: the backend did not start"}
}
