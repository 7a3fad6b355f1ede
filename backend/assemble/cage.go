package assemble

import (
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/tools/sandbox"
)

// CageConfig is the OS cage's configuration from the user's settings:
// the mode, Warden's own folders (hidden from the cage), and the [sandbox]
// deny_read, allow_unix_sockets and limits.
func CageConfig(cfg config.Config, protected []string) sandbox.Config {
	mode := sandbox.ModeBwrap
	if cfg.SandboxMode == "container" {
		mode = sandbox.ModeContainer
	}
	return sandbox.Config{
		Mode:             mode,
		Protected:        protected,
		DenyRead:         cfg.Cage.DenyRead,
		AllowUnixSockets: cfg.Cage.AllowUnixSockets,
		Limits: sandbox.Limits{
			Processes: cfg.Cage.MaxProcesses,
			TmpBytes:  cfg.Cage.TmpBytes,
			FileBytes: cfg.Cage.FileBytes,
		},
	}
}
