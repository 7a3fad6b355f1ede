package settings

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/backend/cage/sandbox"
)

// CageView is what the Settings "Sandbox" card shows about the OS cage:
// the hidden paths that exist on this machine, the host sockets it lets
// through, and its per-call limits.
type CageView struct {
	Hidden           []string `json:"hidden"`
	AllowUnixSockets []string `json:"allow_unix_sockets"`
	// DockerSocket is set when an allowed socket is a container engine's:
	// that is full access to the machine in disguise.
	DockerSocket bool           `json:"docker_socket"`
	Limits       sandbox.Limits `json:"limits"`
}

func cageView(c *sandbox.Cage) *CageView {
	if c == nil {
		return nil
	}
	v := &CageView{Hidden: []string{}, AllowUnixSockets: c.AllowedUnixSockets(), Limits: c.Limits()}
	for _, h := range c.Hidden() {
		if _, err := os.Lstat(h); err == nil {
			v.Hidden = append(v.Hidden, h)
		}
	}
	if v.AllowUnixSockets == nil {
		v.AllowUnixSockets = []string{}
	}
	for _, s := range v.AllowUnixSockets {
		if engineSocket(s) {
			v.DockerSocket = true
		}
	}
	return v
}

// engineSocket recognises the sockets of Docker and Podman by name.
func engineSocket(p string) bool {
	base := filepath.Base(p)
	return base == "docker.sock" || base == "podman.sock" || strings.Contains(p, "/docker/") || strings.Contains(p, "/podman/")
}
