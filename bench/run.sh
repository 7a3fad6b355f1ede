#!/usr/bin/env bash
# make bench: install the peer tools (only when their lock changed), then
# measure Warden and the peers in one run. Extra arguments go to wardenbench
# (e.g. -quick while debugging).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in go node npm bwrap rg socat git strace; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is required (apt: bubblewrap ripgrep socat nodejs npm git strace)" >&2; exit 1; }
done

# Peers live in bench/peers only, never in the product. npm ci runs when
# node_modules is missing or older than package-lock.json.
peers=bench/peers
stamp=$peers/node_modules/.wardenbench-stamp
if [[ ! -f $stamp || $peers/package-lock.json -nt $stamp || $peers/package.json -nt $stamp ]]; then
	echo "bench: installing peers (npm ci --prefix $peers)" >&2
	npm ci --prefix "$peers" --no-audit --no-fund --loglevel=error
	touch "$stamp"
fi

# The desktop memory row measures the built app under a virtual display.
if command -v xvfb-run >/dev/null; then
	make -s desktop
else
	echo "bench: no xvfb-run (apt: xvfb xauth); the desktop memory row is not measured" >&2
	set -- -desktop "" "$@"
fi

work=${WARDEN_BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/warden-bench}
mkdir -p "$work" docs
go build -o "$work/wardenbench" ./bench/cmd/wardenbench
"$work/wardenbench" -work "$work" -peers "$peers" -gemini bench/gemini_policy.mjs \
	-corpus bench/testdata -json docs/benchmarks.json -md docs/benchmarks.md "$@"

# Checkpoints (backend/checkpoint/bench_test.go): the snapshots and change
# set one call costs on 10,000 and 100,000 files with the watcher, with a
# full scan every time, and a plain `git add -A && git write-tree` in a copy
# of the same tree, side by side in one run; and the undo of a call that
# deleted 1,000 files. Targets: ≤ 30 ms, ≤ 150 ms, ≤ 1 s (medians). The
# load average before and after is kept beside them: on a shared machine
# compare the rows of one run.
{
	echo "load before: $(cat /proc/loadavg) ($(nproc) cores)"
	go test -run '^$' -bench . -benchtime "${CHECKPOINT_BENCHTIME:-15x}" -timeout 60m ./backend/checkpoint/
	echo "load after: $(cat /proc/loadavg)"
} | tee "$work/checkpoint-bench.txt"
{
	echo
	echo "## Checkpoints (snapshot + change set per call, undo)"
	echo
	echo "Targets: median ≤ 30 ms on 10,000 files and ≤ 150 ms on 100,000 files for a call that changed one file"
	echo "(two snapshots and the change set); undo of a call that deleted 1,000 files ≤ 1 s. warden: with the"
	echo "watcher; warden-full-scan: git's full scan every time (the fallback); plain-git: \`git add -A && git"
	echo "write-tree\` in a copy of the same tree (one snapshot). ms-median: wall; cpu-ms-median: CPU of Warden and git."
	echo
	echo '```'
	grep -E '^(Benchmark|load )' "$work/checkpoint-bench.txt"
	echo '```'
} >>docs/benchmarks.md
# A whole one-shot process (issue #37): `warden tool shell.exec true`,
# caged, against the bwrap command line it runs, started directly, paired
# in one run; and the sleep syscalls of one warden run (strace). Targets:
# ≤ 3× bwrap's wall and ≤ 5× its CPU (medians of the pairwise ratios), no
# sleep. CPU is the whole tree's, the orphaned init of each bwrap included
# (see oneshot.sh). Needs bin/warden (make bench builds it first) and strace.
bash bench/oneshot.sh bin/warden "${ONESHOT_RUNS:-31}" | tee "$work/oneshot.txt"
{
	echo
	echo "## A whole \`warden tool shell.exec true\` process vs raw bwrap"
	echo
	echo "Targets: the whole process (start, database, probe, gate, checkpoint, cage, post-call check, exit) ≤ 3× the"
	echo "wall time and ≤ 5× the CPU of the same bwrap command line started directly, medians of the pairwise ratios"
	echo "(A B A B …, empty workspace, warm cache); no sleep syscall in one warden run (strace -f). bench/oneshot.sh."
	echo "CPU is user+sys of every process each command started, orphans included: bwrap's outer process exits when its"
	echo "namespace's init reports the command's exit, without waiting for that init (the process that made the cage's"
	echo "mounts), so wait4 and /usr/bin/time leave most of a cage's cost out of both sides; the runner is a child"
	echo "subreaper and counts what it reaps. The wait4-only figure is printed beside it (rounds 1–6 reported that one)."
	echo
	echo '```'
	echo "load: $(cat /proc/loadavg) ($(nproc) cores)"
	cat "$work/oneshot.txt"
	echo '```'
} >>docs/benchmarks.md
# A session's calls (issue #37, rows b and c; backend/runtime/
# bench_callcost_test.go): 100 caged `shell.exec true` through the agent
# loop's call step (gate, checkpoints, cage, post-call check, events, the
# result message), on an empty workspace and on 10,000 files, each round
# paired with the same bwrap command line started directly; and a read-only
# command under Full access in the claim's read-only cage against the same
# graph in container mode (unconfined), with bwrap's own cost over the bare
# command measured in the same rounds. Targets (ms-over-bwrap, medians of
# the per-round differences): ≤ 10 ms empty, ≤ 30 ms at 10,000 files,
# ≤ 5 ms for the claim.
{
	echo "load before: $(cat /proc/loadavg) ($(nproc) cores)"
	go test -run '^$' -bench 'AgentLoopCall|FullAccessClaim' -benchtime "${CALLCOST_BENCHTIME:-100x}" -timeout 60m ./backend/runtime/
	echo "load after: $(cat /proc/loadavg)"
} | tee "$work/callcost-bench.txt"
{
	echo
	echo "## A session's calls through the agent loop vs raw bwrap"
	echo
	echo "Targets (issue #37): per call ≤ raw bwrap + 10 ms on an empty workspace and ≤ raw bwrap + 30 ms on 10,000 files"
	echo "(checkpoints and post-call check included); a read-only command under Full access ≤ raw bwrap + 5 ms more than"
	echo "unconfined. One call and one bwrap per round (-benchtime rounds, 100 by default), one session; ms-over-bwrap is the median of the per-round"
	echo "differences (for the claim: (claim − unconfined) − (bwrap − bash)); cpu-ms is this process and its waited-for children (so not the orphaned init of each bwrap: see the row above; the targets are on wall time)."
	echo
	echo '```'
	grep -E '^(Benchmark|load )' "$work/callcost-bench.txt"
	echo '```'
	echo
	awk '/^Benchmark(AgentLoopCall|FullAccessClaim)/ {
		n = $1; sub(/-[0-9]+$/, "", n); v = ""
		for (i = 2; i <= NF; i++) if ($(i+1) == "ms-over-bwrap") v = $i
		want = (n ~ /empty/) ? 10 : (n ~ /files10000/) ? 30 : 5
		printf "- %s: %+.1f ms over bwrap per call, target ≤ %d ms: %s\n", n, v, want, (v <= want) ? "met" : "NOT met" }' "$work/callcost-bench.txt"
} >>docs/benchmarks.md
# Organisation policy and rules (issue 33): loading the signed policy at
# start (allowed_signers, SSHSIG, the bundle and its rules' examples) must
# take at most 5 ms, and a decision with 200 rules loaded at most twice one
# without; each call kind is measured both ways in one run.
{
	echo "load before: $(cat /proc/loadavg) ($(nproc) cores)"
	go test -run '^$' -bench . -benchtime "${ORG_BENCHTIME:-300x}" ./backend/orgpolicy/
	go test -run '^$' -bench 'BenchmarkDecideRules' -benchtime "${RULES_BENCHTIME:-20000x}" ./backend/policy/
	echo "load after: $(cat /proc/loadavg)"
} | tee "$work/org-bench.txt"
{
	echo
	echo "## Organisation policy and rules"
	echo
	echo "Targets: policy load + signature check at start ≤ 5 ms; a decision with 200 rules ≤ 2× one without"
	echo "(rules=0 against rules=200, per call kind). cpu-ns/op is the CPU time (the load: the whole process; a decision:"
	echo "its own thread), which stays meaningful on a shared machine."
	echo
	echo '```'
	grep -E '^(Benchmark|load )' "$work/org-bench.txt"
	echo '```'
	echo
	echo "Ratios (cpu-ns/op, rules=200 / rules=0):"
	echo
	grep -E '^BenchmarkDecideRules' "$work/org-bench.txt" | awk '
		{ split($1, p, "/"); n = p[3]; sub(/-[0-9]+$/, "", n)
		  for (i = 2; i <= NF; i++) if ($(i+1) == "cpu-ns/op") v = $i
		  if (n == "rules=0") base[p[2]] = v; else with[p[2]] = v }
		END { for (k in base) printf "- %s: %.2f× (%s → %s ns)\n", k, with[k] / base[k], base[k], with[k] }' | sort
} >>docs/benchmarks.md
# Network through the proxy: proxied vs direct fetches and caged curl, side
# by side; it (re)writes its section of docs/benchmarks.md.
go run ./bench/cmd/netbench -rounds 100 -work "$work/netbench" -md docs/benchmarks.md -json docs/benchmarks-network.json

# The audit trail at AUDIT_ROWS (default 100,000) rows in headless Chromium
# against warden serve; it adds its section to docs/benchmarks.md. Needs
# bin/warden and frontend/dist (make bench builds both first).
if [[ ! -x ${CHROMIUM:-/usr/bin/chromium} ]]; then
	echo "bench: ${CHROMIUM:-/usr/bin/chromium} is missing (apt: chromium); the audit-trail measurement needs it" >&2
	exit 1
fi
node e2e/audit.e2e.mjs --rows "${AUDIT_ROWS:-100000}" --md docs/benchmarks.md --json docs/benchmarks-audit.json

# The OpenTelemetry export (backend/telemetry/bench_test.go): a caged
# shell.exec through the whole graph with the export off, on with a live
# collector (built from testdeps/otelcol, cached) and on with a dead one,
# interleaved round by round. Target: both overheads ≤ 2 % of the median.
{
	echo "load before: $(cat /proc/loadavg) ($(nproc) cores)"
	go test -run '^$' -bench ExportOverhead -benchtime "${TELEMETRY_BENCHTIME:-200x}" -timeout 60m ./backend/telemetry/
	echo "load after: $(cat /proc/loadavg)"
} | tee "$work/telemetry-bench.txt"
{
	echo
	echo "## OpenTelemetry export overhead (caged shell.exec)"
	echo
	echo "Target: ≤ 2 % over the export switched off, with a live collector and with a dead one (nothing listening)."
	echo "Each round runs one caged \`shell.exec true\` per configuration, in rotating order; ms-median-* are the medians"
	echo "of the three, %-overhead-* their differences to off. sent-live and queued-dead show the export was working."
	echo
	echo '```'
	grep -E '^(Benchmark|load )' "$work/telemetry-bench.txt"
	echo '```'
} >>docs/benchmarks.md
