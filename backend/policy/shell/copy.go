package shell

import (
	"path"
	"strings"
)

// cp, mv, ln and install put their sources at a destination that may be a
// folder: the files they create are the folder's entries named after the
// sources (cp x D/ writes D/x), and those are what the engine checks against
// the protected set. Links they create make their targets writable under
// another name.

// dest is where cp, mv, ln or install put their sources.
type dest struct {
	to   arg
	srcs []arg
	// dir: the destination is a folder (-t, several sources, a trailing
	// slash); notDir: it is the file itself (-T). Neither: it may be either,
	// and both are recorded.
	dir, notDir, ok bool
}

func destOf(opts []popt, ops []arg) dest {
	if t := tagged(opts, "target"); len(t) > 0 {
		last := t[len(t)-1]
		return dest{to: arg{val: last.val, static: !last.dynamic}, srcs: ops, dir: true, ok: true}
	}
	if len(ops) == 0 {
		return dest{}
	}
	d := dest{to: ops[len(ops)-1], srcs: ops[:len(ops)-1], ok: true}
	d.notDir = hasTag(opts, "notdir")
	d.dir = !d.notDir && (len(d.srcs) > 1 || strings.HasSuffix(d.to.val, "/"))
	return d
}

// entries are the paths, as written, that a copy into d creates: the
// destination, and each source's name inside it when it may be a folder.
func (d dest) entries() []arg {
	out := []arg{d.to}
	if d.notDir || !d.to.static || d.to.glob {
		return out
	}
	for _, s := range d.srcs {
		if !s.static || s.glob {
			continue // named at run time: the folder itself is recorded
		}
		base := lastComponent(s.val)
		if base == "" || base == "." || base == ".." || base == "/" {
			continue
		}
		out = append(out, arg{val: strings.TrimRight(d.to.val, "/") + "/" + base, static: true})
	}
	return out
}

// fromNothing reports a copy source that is empty: copying it over a file
// truncates that file.
func fromNothing(srcs []arg) bool {
	for _, a := range srcs {
		if a.static && (a.val == "/dev/null" || a.val == "/dev/zero") {
			return true
		}
	}
	return false
}

func hCp(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "cp", inv.args)
	d := destOf(opts, ops)
	if !d.ok {
		return
	}
	if fromNothing(d.srcs) {
		w.destroy("cp from " + d.srcs[0].val + ": empties the destination")
	}
	switch {
	case hasTag(opts, "link"):
		w.linksInto(inv, d, isOpt(opts, "--symbolic-link"))
	case copiesLinks(opts):
		// A source that is itself a link is copied as a link to the same
		// place.
		for _, s := range d.srcs {
			w.copiedLink(inv.sc, s)
		}
	}
	w.writeOps(inv, d.entries(), "cp")
}

// copiesLinks: -P, -d, -a and -r (without -L) copy a symbolic link as a link.
func copiesLinks(opts []popt) bool {
	if isOpt(opts, "--dereference") {
		return false
	}
	return isOpt(opts, "--no-dereference", "-d", "--archive", "--recursive")
}

// copiedLink records the target of a source that is a symbolic link.
func (w *walker) copiedLink(sc *scope, s arg) {
	if !s.static || s.glob {
		return
	}
	self, ok1 := w.resolvePath(sc, s.val, false)
	through, ok2 := w.resolvePath(sc, s.val, true)
	if ok1 && ok2 && self != through {
		w.res.Links = append(w.res.Links, through)
	}
}

func hMv(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "mv", inv.args)
	d := destOf(opts, ops)
	if !d.ok {
		return
	}
	if d.to.static && !d.to.glob && strings.HasPrefix(d.to.val, "/dev/") {
		w.destroy("mv to " + d.to.val + ": discards the files moved")
		w.removeOps(inv, d.srcs, "mv")
		return
	}
	w.writeOps(inv, d.entries(), "mv")
	w.removeOps(inv, d.srcs, "mv")
	if len(d.srcs) > 0 || inv.tail {
		m := Move{Unresolved: inv.tail}
		if p, ok := w.resolved(inv.sc, d.to); ok {
			m.Dest = p
		}
		for _, a := range d.srcs {
			// A pattern is resolved as text: ./* under /ws is /ws/*, which
			// lies in the workspace like every file it matches.
			if !a.static {
				m.Unresolved = true
				continue
			}
			if p, ok := w.resolvePath(inv.sc, a.val, false); ok {
				m.Sources = append(m.Sources, p)
			} else {
				m.Unresolved = true
			}
		}
		w.res.Moves = append(w.res.Moves, m)
	}
}

// removeOps records operations on names themselves (rm, a move's sources):
// a link is removed or renamed, not what it points to.
func (w *walker) removeOps(inv *invocation, ops []arg, what string) {
	for _, a := range ops {
		if !a.static || a.glob {
			w.writeTo(inv.sc, a, what)
			continue
		}
		w.writePath(inv.sc, a.val, what, false)
	}
	if inv.tail {
		w.write = true
		w.res.Unresolved = true
		w.unknown(what + ": targets arrive at run time")
	}
}

// resolved is a static argument as the path the engine checks.
func (w *walker) resolved(sc *scope, a arg) (string, bool) {
	if !a.static || a.glob {
		return "", false
	}
	return w.resolvePath(sc, a.val, true)
}

// linksInto records the links ln or cp -l/-s create in d: each link's
// target counts as reachable for writing (Links), and a symbolic link
// becomes part of the script's view of the disk, so later writes through it
// resolve to its target.
func (w *walker) linksInto(inv *invocation, d dest, symbolic bool) {
	sc := inv.sc
	for _, t := range d.srcs {
		if !t.static || t.glob {
			w.unknown("link to a target computed at run time")
			continue
		}
		// Where the link is created.
		at := d.to
		if d.dir || len(d.srcs) > 1 {
			at = arg{val: strings.TrimRight(d.to.val, "/") + "/" + lastComponent(t.val), static: d.to.static, glob: d.to.glob}
		}
		linkPath, okLink := w.resolved(sc, arg{val: at.val, static: at.static, glob: at.glob})
		if okLink && !d.dir && len(d.srcs) == 1 && !d.notDir {
			// ln -s T L where L is an existing folder creates L/T.
			if self, ok := w.resolvePath(sc, at.val, false); ok {
				linkPath = self
			}
		}
		target := t.val
		var resolvedTarget string
		var ok bool
		switch {
		case symbolic && !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "~"):
			// A relative symbolic link is relative to the link's folder.
			if !okLink {
				w.unknown("link whose place is computed at run time")
				continue
			}
			resolvedTarget, ok = w.resolvePath(sc, path.Dir(linkPath)+"/"+target, true)
		default:
			resolvedTarget, ok = w.resolvePath(sc, target, true)
		}
		if !ok {
			w.unknown("link to " + t.val + ", which leads somewhere that cannot be known")
			continue
		}
		w.res.Links = append(w.res.Links, resolvedTarget)
		if symbolic && okLink && !strings.HasPrefix(linkPath, "~") {
			if w.made == nil {
				w.made = map[string]string{}
			}
			if strings.HasPrefix(target, "~") {
				w.made[linkPath] = resolvedTarget
			} else {
				w.made[linkPath] = target
			}
		}
	}
}

func hLn(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "ln", inv.args)
	symbolic := hasTag(opts, "symbolic")
	d := destOf(opts, ops)
	if !d.ok {
		return
	}
	if len(ops) == 1 && len(tagged(opts, "target")) == 0 {
		// ln TARGET: a link named after it in the current folder.
		d = dest{to: arg{val: ".", static: true}, srcs: ops, dir: true, ok: true}
	}
	if fromNothing(d.srcs) && isOpt(opts, "--force") {
		w.destroy("ln -f from " + d.srcs[0].val + ": replaces the destination with an empty file")
	}
	// The link itself is written, not what an existing link at its place
	// points to; its names are resolved before the link exists.
	w.removeOps(&invocation{name: inv.name, sc: inv.sc, tail: inv.tail}, d.entries(), "ln")
	w.linksInto(inv, d, symbolic)
}

func hInstall(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "install", inv.args)
	if hasTag(opts, "directory") {
		w.writeOps(inv, ops, "install -d")
		return
	}
	d := destOf(opts, ops)
	if !d.ok {
		return
	}
	if fromNothing(d.srcs) {
		w.destroy("install from " + d.srcs[0].val + ": empties the destination")
	}
	w.writeOps(inv, d.entries(), "install")
}

// sinkArg reports a word that names a sink once resolved (/dev/null,
// /dev/stdout and their like), not a file the script opened.
func (w *walker) sinkArg(sc *scope, a arg) bool {
	if !a.static || a.glob {
		return false
	}
	p, ok := w.resolvePath(sc, a.val, true)
	if !ok {
		return false
	}
	f, sink := w.sinkPath(p)
	return sink && f == ""
}
