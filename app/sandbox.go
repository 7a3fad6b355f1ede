package app

import (
	"context"

	"github.com/warden-dev/warden/backend/api"
	"github.com/warden-dev/warden/backend/cage/sandbox"
)

// SandboxStatus says whether the OS sandbox works here (api.CageStatus).
type SandboxStatus = api.CageStatus

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
