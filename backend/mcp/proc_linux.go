//go:build linux

package mcp

import "syscall"

// dieWithParent has the kernel kill the server when Warden dies without
// closing it (a crash, SIGKILL, a window killed by its desktop): it is in
// its own process group, so nothing else would reach it.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
