#!/usr/bin/env bash
# Row (a) of issue #37: a whole `warden tool shell.exec true` process, caged,
# against the same bwrap command line started directly, paired in one run
# (A B A B …), on an empty workspace. The bwrap line is the one warden itself
# ran (read from an strace of one warden run), so both sides start the same
# cage. Prints medians of wall and CPU and the median of the pairwise
# ratios, plus the sleep syscalls of one warden run per thread.
# CPU is that of every process the command started, its orphans included:
# bwrap's outer process returns as soon as its namespace's init reports the
# command's exit (bubblewrap's monitor_child reads the init's eventfd and
# exits without waiting for it), so the init — the process that made the
# cage's mounts — is orphaned and its time is in no wait4 of the command's.
# /usr/bin/time and wait4 therefore leave out most of a cage's cost, on both
# sides of the ratio. The runner is a child subreaper (prctl
# PR_SET_CHILD_SUBREAPER), reaps what each command left and counts it; the
# old figure (the command and the children it waited for) is printed beside.
# Usage: bench/oneshot.sh WARDEN_BINARY [RUNS] [OTHER_WARDEN]
# OTHER_WARDEN (optional, e.g. an earlier build) runs the same tool call as a
# fourth command in every round, on its own database, so a change is
# measured against its baseline in the same run.
set -euo pipefail
warden=$(readlink -f "$1")
runs=${2:-21}
other=${3:+$(readlink -f "$3")}
for tool in bwrap strace python3 awk; do
	command -v "$tool" >/dev/null || { echo "oneshot: $tool is required (apt: bubblewrap strace python3)" >&2; exit 1; }
done
work=$(mktemp -d "${WARDEN_BENCH_DIR:-$HOME/.cache/warden-bench}/oneshot.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws"
cd "$work/ws"
db="$work/warden.db"
args=(tool shell.exec --args '{"command":"true"}' --sandbox workspace-write --db "$db")
"$warden" "${args[@]}" >/dev/null # warm: the database, the probe cache, the shadow repository

# The cage's own command line, as warden ran it (the last bwrap execve).
strace -f -qq -s 65536 -v -e trace=execve -o "$work/exec.txt" "$warden" "${args[@]}" >/dev/null
line=$(grep 'execve("[^"]*bwrap"' "$work/exec.txt" | grep -v -- '"--version"' | tail -1)
# execve("/usr/bin/bwrap", ["/usr/bin/bwrap", "--a", ...], [env...]) = 0 → the argv as a bash array
argv=$(sed -E 's/^[0-9]+ +execve\("[^"]*", \[(.*)\], \[.*$/\1/' <<<"$line")
eval "bw=($(sed -E 's/", "/" "/g' <<<"$argv"))"
# bwrap gets its seccomp filter and the like on inherited fds; started
# directly those fds are not there, so drop the flags that name them.
clean=()
for ((i = 0; i < ${#bw[@]}; i++)); do
	case ${bw[i]} in
	--perms) # the mode of the next --file/--bind-data, dropped with it
		case ${bw[i + 2]} in --ro-bind-data | --bind-data | --file) i=$((i + 4)) ;; *) clean+=("${bw[i]}" "${bw[i + 1]}") && i=$((i + 1)) ;; esac ;;
	--seccomp | --sync-fd | --block-fd | --info-fd | --json-status-fd | --userns-block-fd) i=$((i + 1)) ;;
	--ro-bind-data | --bind-data | --file) i=$((i + 2)) ;;
	*) clean+=("${bw[i]}") ;;
	esac
done
"${clean[@]}" >/dev/null 2>&1 || { echo "oneshot: the extracted bwrap line does not run: ${clean[*]}" >&2; exit 1; }

{ printf '%s\0' "$warden" "${args[@]}"; printf '\0'; printf '%s\0' "${clean[@]}"; printf '\0'; printf '%s\0' "$warden" --version; } >"$work/cmds"
if [ -n "$other" ]; then
	# Its own database and cache: the cage's probe cache is keyed by
	# Warden's version, and two builds taking turns would re-probe each time.
	oargs=("${args[@]}")
	oargs[${#oargs[@]} - 1]="$work/other.db"
	mkdir -p "$work/other-cache"
	XDG_CACHE_HOME="$work/other-cache" "$other" "${oargs[@]}" >/dev/null # warm, as above
	# The cache is set in the environment by the runner below, not with
	# env(1): an extra exec would be charged to the other binary.
	{ printf '\0'; printf '%s\0' "$other" "${oargs[@]}"; } >>"$work/cmds"
fi
# Paired runs (with `warden --version`, the start of the binary alone, as a
# third in each round); wall until the command exits, and CPU (user+sys) of
# the whole tree, medians and the median of the ratios.
python3 - "$runs" "$work/cmds" "$work/other-cache" <<'PY'
import ctypes, os, resource, signal, statistics, subprocess, sys, time
runs, cmds = int(sys.argv[1]), open(sys.argv[2]).read().split("\0\0")
other_env = dict(os.environ, XDG_CACHE_HOME=sys.argv[3])
a, b, c = ([w for w in cmd.split("\0") if w] for cmd in cmds[:3])
d = [w for w in cmds[3].split("\0") if w] if len(cmds) > 3 else None
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_CHILD_SUBREAPER = 36
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit(f"oneshot: prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")
def on_alarm(*_):
    sys.exit("oneshot: a process the command left behind was still running 10 s after it exited")
signal.signal(signal.SIGALRM, on_alarm)
def cpu(ru):
    return ru.ru_utime + ru.ru_stime
def one(argv, env=None):
    """(wall, CPU of the whole tree, CPU as wait4 of the command reports it, orphans reaped)"""
    before = cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = 0  # reaped above; Popen must not wait for it again
    signal.alarm(10)
    orphans = 0
    while True:  # the orphans handed to this subreaper (bwrap's init)
        try:
            os.waitpid(-1, 0)
            orphans += 1
        except ChildProcessError:
            break
    signal.alarm(0)
    tree = cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - before
    return wall, tree, cpu(ru), orphans
ra, rb, rc, rd = [], [], [], []
for _ in range(runs):
    ra.append(one(a)); rb.append(one(b)); rc.append(one(c))
    if d:
        rd.append(one(d, other_env))
med = statistics.median
def ratio(xs, ys, i):
    return med(x[i] / max(y[i], 1e-6) for x, y in zip(xs, ys))
def line(name, r):
    return (f"{name}wall {med(x[0] for x in r)*1e3:.0f} ms, cpu {med(x[1] for x in r)*1e3:.1f} ms (medians; cpu as wait4 of the"
            f" command alone reports it: {med(x[2] for x in r)*1e3:.1f} ms; orphans reaped per run: {med(x[3] for x in r):.0f})")
print(f"runs (paired): {runs}")
print(line("warden tool shell.exec true (caged): ", ra))
print(line("bwrap … true (same command line):     ", rb))
print(line("warden --version (the binary's start): ", rc) + " — the floor of any warden process")
print(f"warden tool minus warden --version, median of rounds: wall {med(x[0]-z[0] for x, z in zip(ra, rc))*1e3:.0f} ms, cpu {med(x[1]-z[1] for x, z in zip(ra, rc))*1e3:.1f} ms")
wall, tree, waited = ratio(ra, rb, 0), ratio(ra, rb, 1), ratio(ra, rb, 2)
print(f"ratio warden/bwrap, median of pairs:  wall {wall:.2f}x, cpu {tree:.2f}x (the whole tree; as wait4 of the command alone reports it: {waited:.2f}x)")
if d:
    print(line(f"other warden ({d[0]}), same call: ", rd))
    print(f"ratio warden/other warden, median of pairs: wall {ratio(ra, rd, 0):.2f}x, cpu {ratio(ra, rd, 1):.2f}x")
    print(f"ratio other warden/bwrap, median of pairs: wall {ratio(rd, rb, 0):.2f}x, cpu {ratio(rd, rb, 1):.2f}x")
print(f"target wall <= 3x bwrap: {'met' if wall <= 3 else 'NOT met'}; target cpu <= 5x bwrap: {'met' if tree <= 5 else 'NOT met'}")
PY
echo "bwrap line (run from the workspace): ${clean[*]}"
# Sleeps of one warden run, by thread (nanosleep/clock_nanosleep; Go's own
# time.Sleep and timers wait in futex/epoll and never appear here).
strace -f -qq -e trace=nanosleep,clock_nanosleep,execve,inotify_init1,inotify_add_watch -o "$work/sleep.txt" "$warden" "${args[@]}" >/dev/null
echo "processes started by one warden run: $(grep -c 'execve(' "$work/sleep.txt" | tr -d ' ') execve (incl. failed PATH lookups: $(grep -c 'ENOENT' "$work/sleep.txt" || true))"
# A one-shot process starts no watcher of its own (MCP config, checkpoint);
# the one inotify instance left is the cage's per-call watch of the
# writable roots (its protection of new protected entries), set up for
# the call and closed with it.
echo "inotify instances of one warden run: $(grep -c 'inotify_init1(' "$work/sleep.txt" || true), watches added: $(grep -c 'inotify_add_watch(' "$work/sleep.txt" || true)"
echo "sleep syscalls of one warden run, per thread (count, the first sleep's length):"
grep -E 'nanosleep' "$work/sleep.txt" | awk '{t[$1]++; if (!($1 in f)) { match($0, /tv_nsec=[0-9]+/); f[$1] = substr($0, RSTART + 8, RLENGTH - 8) } } END { for (k in t) printf "  thread %s: %d (first %s ns)\n", k, t[k], f[k] }' | sort -t: -k2 -rn
