#!/usr/bin/env bash
# Row (a) of issue #37: a whole `warden tool shell.exec true` process, caged,
# against the same bwrap command line started directly, paired in one run
# (A B A B …), on an empty workspace. The bwrap line is the one warden itself
# ran (read from an strace of one warden run), so both sides start the same
# cage. Prints medians of wall and CPU (user+sys of the process and its
# children, the kernel's accounting via /usr/bin/time) and the median of the
# pairwise ratios, plus the sleep syscalls of one warden run per thread.
# Usage: bench/oneshot.sh WARDEN_BINARY [RUNS] [OTHER_WARDEN]
# OTHER_WARDEN (optional, e.g. an earlier build) runs the same tool call as a
# fourth command in every round, on its own database, so a change is
# measured against its baseline in the same run.
set -euo pipefail
warden=$(readlink -f "$1")
runs=${2:-21}
other=${3:+$(readlink -f "$3")}
for tool in bwrap strace /usr/bin/time awk; do
	command -v "$tool" >/dev/null || { echo "oneshot: $tool is required (apt: bubblewrap strace time)" >&2; exit 1; }
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
# third in each round); wall and CPU (user+sys of the process tree, from wait4's
# rusage in microseconds) of each, medians and the median of the ratios.
python3 - "$runs" "$work/cmds" "$work/other-cache" <<'PY'
import os, statistics, subprocess, sys, time
runs, cmds = int(sys.argv[1]), open(sys.argv[2]).read().split("\0\0")
other_env = dict(os.environ, XDG_CACHE_HOME=sys.argv[3])
a, b, c = ([w for w in cmd.split("\0") if w] for cmd in cmds[:3])
d = [w for w in cmds[3].split("\0") if w] if len(cmds) > 3 else None
def one(argv, env=None):
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime
ra, rb, rc, rd = [], [], [], []
for _ in range(runs):
    ra.append(one(a)); rb.append(one(b)); rc.append(one(c))
    if d:
        rd.append(one(d, other_env))
med = statistics.median
print(f"runs (paired): {runs}")
print(f"warden tool shell.exec true (caged): wall {med(x[0] for x in ra)*1e3:.0f} ms, cpu {med(x[1] for x in ra)*1e3:.1f} ms (medians)")
print(f"bwrap … true (same command line):     wall {med(x[0] for x in rb)*1e3:.0f} ms, cpu {med(x[1] for x in rb)*1e3:.1f} ms (medians)")
print(f"warden --version (the binary's start): wall {med(x[0] for x in rc)*1e3:.0f} ms, cpu {med(x[1] for x in rc)*1e3:.1f} ms (medians; the floor of any warden process)")
print(f"warden tool minus warden --version, median of rounds: wall {med(x[0]-z[0] for x, z in zip(ra, rc))*1e3:.0f} ms, cpu {med(x[1]-z[1] for x, z in zip(ra, rc))*1e3:.1f} ms")
wall, cpu = med(x[0]/y[0] for x, y in zip(ra, rb)), med(x[1]/max(y[1], 1e-6) for x, y in zip(ra, rb))
print(f"ratio warden/bwrap, median of pairs:  wall {wall:.2f}x, cpu {cpu:.2f}x")
if d:
    print(f"other warden ({d[0]}), same call: wall {med(x[0] for x in rd)*1e3:.0f} ms, cpu {med(x[1] for x in rd)*1e3:.1f} ms (medians)")
    print(f"ratio warden/other warden, median of pairs: wall {med(x[0]/y[0] for x, y in zip(ra, rd)):.2f}x, cpu {med(x[1]/y[1] for x, y in zip(ra, rd)):.2f}x")
    print(f"ratio other warden/bwrap, median of pairs: wall {med(x[0]/y[0] for x, y in zip(rd, rb)):.2f}x, cpu {med(x[1]/max(y[1], 1e-6) for x, y in zip(rd, rb)):.2f}x")
print(f"target wall <= 3x bwrap: {'met' if wall <= 3 else 'NOT met'}; target cpu <= 5x bwrap: {'met' if cpu <= 5 else 'NOT met'}")
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
