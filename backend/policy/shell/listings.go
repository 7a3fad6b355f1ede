package shell

import "strings"

// Read-only programs, and programs that only list until told to act.

// hReadOnly is a program with no option that writes, runs or connects.
// Without an option table, an option that selects a configuration file or
// sets configuration (--config-file, --rcfile, -o Key=Value) is not proven
// harmless: configuration can name programs to run or files to write.
func hReadOnly(w *walker, inv *invocation) { w.configGuard(inv) }

// configWords are parts of long option names that select or set
// configuration, plugins or programs to run.
var configWords = []string{"config", "conf", "rcfile", "init-file", "settings", "option", "preload", "plugin",
	"load", "exec", "command", "pager", "editor", "hook", "define", "profile", "lesskey"}

// formatO are programs whose -o is an output format, not an option setting.
var formatO = map[string]bool{"ps": true, "lsblk": true, "findmnt": true, "lsof": true, "netstat": true,
	"iostat": true, "join": true, "column": true, "df": true, "free": true, "pstree": true, "w": true,
	"pgrep": true, "last": true}

func (w *walker) configGuard(inv *invocation) {
	for i, a := range inv.args {
		if !a.static {
			continue
		}
		v := a.val
		if v == "--" {
			return
		}
		if name, ok := strings.CutPrefix(v, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			for _, c := range configWords {
				if strings.Contains(name, c) {
					w.unknown(inv.name + " " + v + " selects configuration, which can make it run or write anything")
					return
				}
			}
			continue
		}
		if formatO[inv.name] || len(v) < 2 || v[0] != '-' || v[1] != 'o' && v[1] != 'O' {
			continue
		}
		val := v[2:]
		if val == "" && i+1 < len(inv.args) {
			val = inv.args[i+1].val
		}
		if strings.Contains(val, "=") || strings.Contains(val, "::") {
			w.unknown(inv.name + " " + v + " sets configuration, which can make it run or write anything")
			return
		}
	}
}

// hAptCache: queries read the package cache; gencaches and the cache and
// configuration options write or reconfigure it.
func hAptCache(w *walker, inv *invocation) {
	_, ops, ok := w.tableOpts(inv, "apt-cache", inv.args)
	if ok && first(ops) == "gencaches" {
		w.unknown("apt-cache gencaches writes the package caches")
	}
}

// hDevice: mount, swapon and losetup list what is mounted or attached when
// given nothing to act on; fdisk, sfdisk, parted and wipefs have listing
// modes. Everything else changes disks, partitions or mounts.
func hDevice(w *walker, inv *invocation) {
	if deviceListing(inv) {
		return
	}
	w.destroy(inv.name + ": changes disks, partitions or mounts")
}

func deviceListing(inv *invocation) bool {
	if inv.dynamic() {
		return false
	}
	var opts, ops []string
	for _, a := range inv.args {
		if strings.HasPrefix(a.val, "-") && a.val != "-" {
			opts = append(opts, a.val)
		} else {
			ops = append(ops, a.val)
		}
	}
	only := func(allowed ...string) bool {
		for _, o := range opts {
			ok := false
			for _, a := range allowed {
				if o == a {
					ok = true
				}
			}
			if !ok {
				return false
			}
		}
		return true
	}
	switch inv.name {
	case "mount":
		// mount [-l] [-t TYPE]: lists; -t's value is an operand here.
		if only("-l", "--show-labels", "-t", "--types", "-v", "--verbose") && (len(ops) == 0 || len(ops) == 1 && hasAnyStr(opts, "-t", "--types")) {
			return true
		}
	case "umount", "swapoff":
		return len(ops) == 0 && only("-v", "--verbose", "-h", "--help", "-V", "--version")
	case "swapon":
		return len(ops) == 0 && only("-s", "--summary", "--show", "--noheadings", "--raw", "--bytes", "-v", "--verbose", "-h", "--help", "-V", "--version") ||
			hasAnyStr(opts, "--show") && len(ops) == 0
	case "losetup":
		return len(ops) == 0 && only("-a", "--all", "-l", "--list", "-n", "--noheadings", "--raw", "-J", "--json", "-O", "--output", "-v", "--verbose") ||
			len(ops) == 1 && only("-j", "--associated")
	case "fdisk", "sfdisk":
		return len(opts) > 0 && only("-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size", "-V", "--verify", "-o", "--output", "-x", "--list-free", "-F", "--list-types", "-T", "-g", "--show-geometry")
	case "parted":
		return only("-l", "--list", "-s", "--script", "-m", "--machine") && hasAnyStr(opts, "-l", "--list") && len(ops) == 0
	case "wipefs":
		// Without -a or -o it only prints the signatures it finds.
		return only("-n", "--no-act", "-i", "--noheadings", "-J", "--json", "-O", "--output", "-p", "--parsable", "-q", "--quiet", "-t", "--types")
	case "lsmod", "losetup-list":
		return true
	}
	return false
}

func hasAnyStr(list []string, vals ...string) bool {
	for _, v := range list {
		for _, x := range vals {
			if v == x {
				return true
			}
		}
	}
	return false
}

// hKill: signal 0 only checks that a process exists, and -l lists signal
// names; anything else stops processes or the machine.
func hKill(w *walker, inv *invocation) {
	switch inv.name {
	case "kill", "pkill", "killall":
		if killProbe(inv) {
			return
		}
	}
	w.destroy(inv.name + ": stops processes or the machine")
}

func killProbe(inv *invocation) bool {
	if len(inv.args) == 0 || inv.dynamic() {
		return false
	}
	args := inv.args
	switch v := args[0].val; {
	case v == "-l" || v == "-L" || v == "--list" || v == "--table" || strings.HasPrefix(v, "--list="):
		return true
	case v == "-0" || v == "-s0" || v == "-n0" || v == "--signal=0":
		return len(args) > 1
	case v == "-s" || v == "-n" || v == "--signal":
		return len(args) > 2 && args[1].val == "0"
	}
	return false
}
