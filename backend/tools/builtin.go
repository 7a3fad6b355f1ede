package tools

import "github.com/warden-dev/warden/backend/cage/sandbox"

// Builtins returns a registry of the built-in tools: shell and command
// monitors confined by cage, search with the rg binary at rgPath ("" for rg
// on PATH), monitors kept by mons.
func Builtins(cage *sandbox.Cage, mons *Monitors, rgPath string) (*Registry, error) {
	// The folder tools leave out what the cage hides (the same list the
	// engine asks about when a read names one directly).
	var hidden []string
	if cage != nil {
		hidden = cage.Hidden()
	}
	return NewRegistry(
		NewShellExec(cage),
		NewFsRead(),
		NewFsWrite(),
		newFsList(hidden),
		NewPatchApply(),
		newSearchRipgrep(rgPath, hidden),
		NewMonitorStart(mons),
		NewMonitorList(mons),
		NewMonitorStop(mons),
		NewMonitorRead(mons),
	)
}
