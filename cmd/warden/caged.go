package main

import (
	"context"
	"os/exec"
	"time"
)

// cageAvailable reports whether bwrap can start a user-namespace sandbox on
// this machine: the OS cage the engine relies on for unproven commands.
func cageAvailable(ctx context.Context) bool {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	truePath, err := exec.LookPath("true")
	if err != nil {
		return false
	}
	cmd := exec.CommandContext(ctx, path, "--ro-bind", "/", "/", "--unshare-user", "--die-with-parent", truePath)
	return cmd.Run() == nil
}
