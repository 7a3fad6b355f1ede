package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// The shape of one call's cage (policy.Cage, "The claim is enforced"): the
// engine decides how far a command may reach from what it claimed, and
// the cage holds it there, in every sandbox mode.
//
//   - read-only: nothing writable but the private /tmp and the cage's
//     toolchain caches (caches.go);
//   - workspace-write: the workspace and writable roots, the
//     cage-protected set excepted;
//   - full-access: the whole filesystem writable (the host's /tmp
//     included) except the cage-protected set in the workspace and roots,
//     the edit-protected system folders and home entries, the user's own
//     toolchain caches and Warden's own cache folder; secrets hidden,
//     network through the proxy, seccomp and limits as ever;
//   - host: a human approved the call under danger-full-access: the host
//     as it is (network, secrets, sockets, devices), with only the
//     cage-protected set of the workspace and roots held read-only, but for
//     the protected paths the human saw the command write (Approved).
//     bubblewrap sets no_new_privs, so a setuid program (sudo) does not
//     gain privileges there;
//   - none: no cage at all (no bwrap on this machine, container mode).

// shapeOf is the cage spec runs in: its Shape, or, when none was decided
// (a caller outside the gate), the whole reach of its sandbox axis.
func shapeOf(spec Spec) policy.Cage {
	if spec.Shape != nil {
		return *spec.Shape
	}
	switch spec.Policy.Kind {
	case policy.ReadOnly:
		return policy.Cage{Shape: policy.CageReadOnly, Why: "the sandbox is read-only"}
	case policy.WorkspaceWrite:
		return policy.Cage{Shape: policy.CageWorkspaceWrite, Network: spec.Policy.NetworkAccess, Why: "the sandbox is workspace-write"}
	}
	return policy.Cage{Shape: policy.CageHost, Why: "the sandbox is danger-full-access"}
}

// confining reports the shapes that run the command inside the cage
// proper: own namespaces, seccomp, limits, hidden secrets.
func confining(s policy.CageShape) bool { return (&policy.Cage{Shape: s}).Confines() }

// usesBwrap reports the shapes bubblewrap runs.
func usesBwrap(s policy.CageShape) bool { return confining(s) || s == policy.CageHost }

// writableFor are the roots a shape makes writable and protects inside:
// the workspace and the existing writable roots, parents first, so a
// nested root is bound on top. A read-only cage has none.
func writableFor(spec Spec, sh policy.Cage) []string {
	if sh.Shape == policy.CageReadOnly {
		return nil
	}
	writable := []string{spec.Workspace}
	for _, r := range spec.Policy.WritableRoots {
		if filepath.IsAbs(r) {
			if _, err := os.Stat(r); err == nil {
				writable = append(writable, filepath.Clean(r))
			}
		}
	}
	return sortedRoots(writable)
}

// hostArgs builds a host cage: the host's filesystem, devices, processes
// and network as they are, in a user namespace only so that the
// cage-protected entries can be bound read-only over themselves.
func (c *Cage) hostArgs(spec Spec, dir string, sh policy.Cage, p *Prepared) ([]string, []*os.File, error) {
	b := &argBuilder{}
	defer func() { p.files = b.files }()
	b.add("--unshare-user", "--die-with-parent", "--dev-bind", "/", "/")
	if err := c.protect(b, writableFor(spec, sh), sh.Approved, p); err != nil {
		return nil, nil, err
	}
	b.add("--chdir", dir, "--")
	return b.args, b.files, nil
}

// fullAccessHold binds read-only, in a full-access cage, what an unasked
// command must not change although the rest of the filesystem is
// writable: the edit-protected system folders, the home folder's entries
// whose change runs code later or reconfigures a tool (the engine asks
// before a visible write to them), the user's own toolchain caches (an
// unconfined build would use what a cage wrote there) and Warden's cache
// folder (the browser driver, checkpoints). The cage's own caches are
// bound writable after this (caches.go).
func (c *Cage) fullAccessHold(b *argBuilder) {
	var hold []string
	hold = append(hold, policy.EditSystemFolders()...)
	home := c.cfg.Home
	if home != "" {
		for _, rel := range policy.HomeProtected() {
			hold = append(hold, filepath.Join(home, rel))
		}
		for _, rel := range userCaches {
			hold = append(hold, filepath.Join(home, rel))
		}
	}
	if w := c.wardenCache(); w != "" {
		hold = append(hold, w)
	}
	seen := map[string]bool{}
	for _, h := range hold {
		if seen[h] {
			continue
		}
		seen[h] = true
		if _, hidden := hiddenUnder(c.hidden, h); hidden {
			continue // covered by hide
		}
		if _, err := os.Lstat(h); err != nil {
			continue
		}
		if fi, err := os.Stat(h); err != nil || (!fi.IsDir() && !fi.Mode().IsRegular()) {
			continue // a dangling link or a socket: nothing to hold
		}
		b.add("--ro-bind", h, h)
	}
}

// homeGuarded are the home folder's entries a full-access cage holds,
// relative to it: those the engine asks about, the user's toolchain
// caches and Warden's cache folder. The existing ones are bound
// read-only (fullAccessHold); guardHome catches the ones a call creates.
func homeGuarded() []string {
	out := append(policy.HomeProtected(), userCaches...)
	return append(out, ".cache/warden")
}

// guardHome watches, for the life of a full-access call, the home folder
// and the folders on the way to each guarded entry that does not exist
// (a read-only bind needs something to bind over): whatever the call
// makes at a guarded path (a new ~/.zshrc, ~/.config/autostart/x.desktop,
// a GOCACHE the user has not made yet) is removed at once and reported, as
// the workspace's watch does for its protected names.
func (c *Cage) guardHome(p *Prepared) error {
	home := c.cfg.Home
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	home = filepath.Clean(home)
	guarded := homeGuarded()
	judge := func(path string) bool {
		rel, ok := strings.CutPrefix(path, home+string(filepath.Separator))
		if !ok {
			return false
		}
		for _, g := range guarded {
			if rel == g || strings.HasPrefix(rel, g+"/") {
				return true
			}
		}
		return false
	}
	dirs := map[string]bool{home: true}
	for _, g := range guarded {
		if _, err := os.Lstat(filepath.Join(home, g)); err == nil {
			continue // held by its bind
		}
		for d := filepath.Dir(filepath.Join(home, g)); Within(home, d); d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
				dirs[d] = true
				break
			}
		}
	}
	w, err := newWatcher(&rules{roots: []string{home}, hidden: c.hidden, judge: judge})
	if err != nil {
		return err
	}
	p.home = w
	for d := range dirs {
		if err := w.add(d); err != nil {
			return err
		}
	}
	// What the call finds at a guarded path when it starts is the user's:
	// a later look at the roots (an overflow) must not take it for new.
	var s scan
	for _, g := range guarded {
		if _, err := os.Lstat(filepath.Join(home, g)); err == nil {
			s.protected = append(s.protected, Protected{Path: filepath.Join(home, g)})
		}
	}
	w.start(s)
	return nil
}
