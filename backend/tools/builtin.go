package tools

import "github.com/warden-dev/warden/backend/cage/sandbox"

// Builtins returns a registry of the built-in tools: shell and command
// monitors confined by cage, search with the rg binary at rgPath ("" for rg
// on PATH), monitors kept by mons.
func Builtins(cage *sandbox.Cage, mons *Monitors, rgPath string) (*Registry, error) {
	return NewRegistry(
		NewShellExec(cage),
		NewFsRead(),
		NewFsWrite(),
		NewFsList(),
		NewPatchApply(),
		NewSearchRipgrep(rgPath),
		NewMonitorStart(mons),
		NewMonitorList(mons),
		NewMonitorStop(mons),
		NewMonitorRead(mons),
	)
}
