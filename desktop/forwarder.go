package desktop

import (
	"os"
	"path/filepath"
)

// CageForwarder is the binary the cage re-executes as its network
// forwarder (sandbox.Config.Forwarder): the warden CLI installed beside
// this executable (the package puts both in /usr/bin, from one build), or
// "" for the running binary. The window's own executable links GTK and
// WebKit: the dynamic loader maps their 160-odd libraries before Go starts,
// about 300 ms of CPU on every caged call with network, against about 25 ms
// for the static CLI (bench/cmd/netbench, README "Network").
func CageForwarder() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return ""
	}
	return siblingForwarder(exe)
}

// siblingForwarder is the executable file "warden" in exe's folder, or "".
func siblingForwarder(exe string) string {
	p := filepath.Join(filepath.Dir(exe), "warden")
	if p == exe {
		return ""
	}
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return ""
	}
	return p
}
