//go:build unix && !linux

package mcp

import "syscall"

// dieWithParent: only Linux has a parent-death signal.
func dieWithParent(*syscall.SysProcAttr) {}
