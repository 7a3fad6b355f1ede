//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the server in its own process group so that a server
// started through a wrapper (npx, uvx, a shell) dies with all its children.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
