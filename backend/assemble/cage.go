package assemble

import (
	"context"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
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

// OpenCage is Open's cage for a front end without a graph (`warden mcp`,
// which starts MCP servers): the same configuration, Warden's own folders
// hidden, detected once. The caller closes it.
func OpenCage(ctx context.Context, o Options) (*sandbox.Cage, error) {
	userPath := o.ConfigPath
	if userPath == "" {
		var err error
		if userPath, err = config.UserPath(); err != nil {
			return nil, err
		}
	}
	cfg, err := config.Load(userPath, o.Workspace)
	if err != nil {
		return nil, err
	}
	dbPath, explicit, err := ResolveDBPath(o.DBPath)
	if err != nil {
		return nil, err
	}
	engine := policy.New(policy.Config{ProtectedPaths: protectedData(dbPath, explicit, userPath)})
	c := newCage(cfg, engine.ExtraProtected(), o.Forwarder, o.Version)
	c.Detect(ctx)
	return c, nil
}
