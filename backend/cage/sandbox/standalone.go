package sandbox

// fdFlags are the bwrap options whose argument is a descriptor Warden
// hands the cage (Prepared.Cmd.ExtraFiles), with how many arguments follow
// the flag: they mean nothing, or another file, to a bwrap started by hand.
var fdFlags = map[string]int{
	"--seccomp": 1, "--info-fd": 1, "--block-fd": 1, "--sync-fd": 1, "--json-status-fd": 1, "--userns-block-fd": 1,
	"--ro-bind-data": 2, "--bind-data": 2, "--file": 2,
}

// StandaloneArgv is a cage's command line (Prepared.Argv) without the
// options that name Warden's descriptors — the seccomp filter, the info
// and block pipes, the files placed with --ro-bind-data (and their
// --perms) — so the same cage can be started by hand or by a benchmark
// next to Warden's. Started as it is, bwrap would read those numbers from
// whatever it has open under them (with --block-fd, wait on one forever).
// The command after "--" is kept whole.
func StandaloneArgv(argv []string) []string {
	out := make([]string, 0, len(argv))
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			return append(out, argv[i:]...)
		}
		if a == "--perms" && i+2 < len(argv) {
			if n, ok := fdFlags[argv[i+2]]; ok && n == 2 {
				i += 1 + 1 + n // --perms MODE --ro-bind-data FD DEST
				continue
			}
		}
		if n, ok := fdFlags[a]; ok {
			i += n
			continue
		}
		out = append(out, a)
	}
	return out
}
