#!/usr/bin/env bash
# make package-fresh: a real `apt install ./warden_*.deb` on a fresh Debian 12.
#
# Bootstraps a throw-away minbase bookworm root with mmdebstrap from Debian's
# mirror, installs the package there with apt (Depends and Recommends, as a
# user would), and checks from inside it, as an unprivileged user:
#   - every package apt pulled in is one Debian's sources offer (no foreign ones);
#   - `warden version` and `warden policy check` answer;
#   - the browser tool reads a page with the packaged Node and Debian's
#     chromium (Debian's nodejs, 18, is not pulled in);
#   - the menu entry's Exec line starts the window under Xvfb until it writes
#     the smoke test's ready marker (WARDEN_READY_FILE);
#   - `apt remove` and `dpkg --purge` take the programs away and leave the
#     user's ~/.config/warden and ~/.local/share/warden byte for byte.
# Needs root (chroot, mounts) and Debian's mirror; takes a few minutes, so it
# is not part of `make test`. Everything it mounts lives in a private mount
# namespace and goes with it; the root folder is removed at the end (set
# WARDEN_FRESH_KEEP=1 to keep it). Nothing of this machine's package database
# is touched, except that mmdebstrap itself is installed when missing.
#
#	scripts/package/fresh.sh dist/warden_0.1.0~dev+abc_amd64.deb
set -euo pipefail
export LC_ALL=C # one collation for sort, comm and join

log() { printf 'package-fresh: %s\n' "$*"; }
fail() { printf 'package-fresh: FAIL: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || fail "usage: $0 dist/warden_<version>_amd64.deb"
deb=$(realpath "$1")
[ -f "$deb" ] || fail "$1 does not exist (make package builds it)"
[ "$(id -u)" -eq 0 ] || fail "needs root: it bootstraps a Debian root and chroots into it (sudo make package-fresh)"

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# A private mount namespace: the binds and mounts below vanish with this
# process however it ends, and never show in the machine's mount table.
if [ -z "${WARDEN_FRESH_NS:-}" ]; then
	if ! command -v mmdebstrap >/dev/null; then
		log "installing mmdebstrap (apt-get)"
		apt-get -o DPkg::Lock::Timeout=600 update -q
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends mmdebstrap
	fi
	exec env WARDEN_FRESH_NS=1 unshare --mount --propagation private "$0" "$@"
fi

started=$SECONDS
work=$(mktemp -d "${TMPDIR:-/var/tmp}/warden-fresh-XXXXXX")
root=$work/root
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	# Unmount before removing, deepest first: rm must never walk into the
	# machine's /dev, /sys or X sockets through a bind.
	mounts() { awk -v r="$root" 'index($2, r) == 1 {print $2}' /proc/self/mounts; }
	mounts | sort -r | while read -r m; do umount -l "$m" || true; done
	if [ -n "$(mounts)" ]; then
		log "still mounted under $root, not removing $work: $(mounts | tr '\n' ' ')"
	elif [ -z "${WARDEN_FRESH_KEEP:-}" ]; then
		rm -rf --one-file-system "$work"
	else
		log "kept $work"
	fi
}
trap cleanup EXIT

# 1. A fresh Debian 12: minbase (apt, dpkg, the essential set), Debian's
#    sources only.
log "bootstrapping Debian 12 (minbase) from $MIRROR into $root"
mmdebstrap --quiet --mode=root --variant=minbase bookworm "$root" \
	"deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" "deb $SECURITY bookworm-security main"
log "bootstrapped $(chroot "$root" dpkg-query -W | wc -l) packages in $((SECONDS - started)) s"

mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount -t tmpfs -o mode=755 tmpfs "$root/run"
cp /etc/resolv.conf "$root/etc/resolv.conf"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# 2. apt install ./warden_*.deb, with Recommends as apt does by default.
cp "$deb" "$root/tmp/"
in_root dpkg-query -W -f='${Package}\n' | sort >"$work/before"
in_root apt-get update -q >/dev/null
log "apt install ./$(basename "$deb")"
t0=$SECONDS
in_root sh -c "cd /tmp && apt install -y -q ./$(basename "$deb")" >"$work/apt.log" 2>&1 || {
	tail -40 "$work/apt.log"
	fail "apt install failed"
}
log "$(grep -E '^Need to get|newly installed' "$work/apt.log" | tr '\n' ' ')($((SECONDS - t0)) s)"
in_root dpkg-query -W -f='${Package}\t${Version}\t${Status}\n' | awk -F'\t' '$3 == "install ok installed" {print $1 "\t" $2}' |
	sort >"$work/after"
in_root dpkg-query -W -f='${Status}' warden | grep -q 'install ok installed' || fail "warden is not installed"

# Every package apt added, warden aside, is one Debian's sources offer in
# exactly the installed version (madison pads its columns with spaces).
cut -f1 "$work/after" | comm -13 "$work/before" - | grep -vx warden >"$work/new"
in_root apt-cache madison $(cat "$work/new") |
	awk -F' [|] ' -v m="$MIRROR" -v s="$SECURITY" '{gsub(/ /, "", $1); gsub(/ /, "", $2)} index($3, m) == 1 || index($3, s) == 1 {print $1 "\t" $2}' |
	sort -u >"$work/offered"
foreign=$(join -t "$(printf '\t')" "$work/new" "$work/after" | comm -23 - "$work/offered")
[ -z "$foreign" ] || fail "packages not from Debian's sources (name and version):
$foreign"
log "pulled in $(wc -l <"$work/new") packages, every one from Debian's sources ($MIRROR, $SECURITY)"

# 3. The programs, as an ordinary user with a home of their own.
in_root useradd -m -s /bin/bash tester
uid=$(in_root id -u tester)
# A command, not a function: started with & it is the process $! names.
as_user=(chroot --userspec="$uid:$uid" "$root" env -i HOME=/home/tester USER=tester PATH=/usr/bin:/bin LANG=C.UTF-8)
in_root mkdir -p /home/tester/work
in_root chown tester:tester /home/tester/work

out=$("${as_user[@]}" sh -c 'cd ~/work && warden version')
[[ $out == "warden "* ]] || fail "warden version said: $out"
log "$out (from /usr/bin/warden)"

while IFS='|' read -r want call; do
	# The exit status is not the check: a deny may be reported as one.
	out=$("${as_user[@]}" sh -c 'cd ~/work && warden policy check --workspace ~/work' <<<"$call" 2>&1 || true)
	got=$(printf '%s\n' "$out" | sed -n '1s/.*"decision": *"\([a-z]*\)".*/\1/p')
	[ "$got" = "$want" ] || fail "policy check $call: '$got', want $want:
$out"
	log "policy check $call -> $got"
done <<'EOF'
allow|{"tool":"shell.exec","args":{"command":"ls"}}
ask|{"tool":"shell.exec","args":{"command":"rm -rf build"}}
deny|{"tool":"fs.write","args":{"path":"/etc/passwd","content":"x"}}
EOF

# 3b. The browser tool as installed: the packaged Node (Debian 12's nodejs is
#     18, which playwright-core refuses, so the package does not pull it in)
#     running the packaged playwright-core, driving Debian's chromium. A page
#     served on this machine's loopback (the chroot shares its network) must
#     come back as text.
page=$work/page
mkdir -p "$page"
marker="fresh-root-page-$$-$RANDOM"
printf '<html><head><title>fresh</title></head><body><h1>%s</h1></body></html>\n' "$marker" >"$page/index.html"
python3 - "$page" "$work/port" <<'PY' >"$work/http.log" 2>&1 &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2], "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
pids+=($!)
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || fail "the page server did not start: $(cat "$work/http.log")"
if in_root dpkg-query -W -f='${Status}' nodejs 2>/dev/null | grep -q 'install ok installed'; then
	fail "apt pulled in Debian's nodejs, which the package must not need"
fi
log "packaged Node $(in_root /usr/lib/warden/node/bin/node --version); $(in_root chromium --version 2>/dev/null | head -n1)"
args=$(printf '{"actions":[{"action":"navigate","url":"http://127.0.0.1:%s/"},{"action":"get_text","selector":"h1"}]}' "$(cat "$work/port")")
t0=$SECONDS
out=$("${as_user[@]}" sh -c 'cd ~/work && warden tool browser.batch --approval never --args "$1"' sh "$args" 2>&1 || true)
printf '%s\n' "$out" | grep -q "$marker" || fail "the browser tool did not read the page with the packaged Node and Debian's chromium:
$(printf '%s\n' "$out" | tail -40)"
log "browser tool: read the loopback page with the packaged Node and Debian's chromium ($((SECONDS - t0)) s)"

# 4. The menu entry starts the window: its Exec line, run under an X server
#    of this machine (Xvfb is not Warden's to install), until the frontend
#    has mounted and the ready marker names the window's process.
entry=$root/usr/share/applications/warden.desktop
exec_line=$(sed -n 's/^Exec=//p' "$entry" | head -n1 | sed 's/ *%[fFuUick]//g')
[ -n "$exec_line" ] || fail "no Exec line in $entry"
[ -x "$root/usr/bin/${exec_line%% *}" ] || fail "Exec=$exec_line is not a program in /usr/bin"
if in_root sh -c 'command -v desktop-file-validate' >/dev/null; then
	in_root desktop-file-validate /usr/share/applications/warden.desktop || fail "desktop-file-validate refuses the menu entry"
	log "desktop-file-validate: the menu entry is valid"
fi
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || fail "Xvfb did not start: $(cat "$work/xvfb.log")"
DISPLAY=:$(cat "$work/display")
mkdir -p "$root/tmp/.X11-unix"
mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix"
log "starting the menu entry's Exec=$exec_line on $DISPLAY"
t0=$SECONDS
ready=/home/tester/work/ready.json
"${as_user[@]}" DISPLAY="$DISPLAY" WARDEN_READY_FILE=$ready sh -c "cd ~/work && exec $exec_line" >"$work/window.log" 2>&1 &
win=$!
pids+=($win)
for _ in $(seq 900); do
	[ -s "$root$ready" ] && break
	kill -0 "$win" 2>/dev/null || { cat "$work/window.log"; fail "the window exited before it was ready"; }
	sleep 0.1
done
[ -s "$root$ready" ] || { cat "$work/window.log"; fail "the window was not ready in 90 s"; }
log "the window is ready in $((SECONDS - t0)) s: $(cat "$root$ready")"
# The marker's pid is the window's (the Exec line runs it through exec).
grep -q "\"pid\": *$win[,}]" "$root$ready" || fail "the ready marker is not of the started window (pid $win)"
kill -TERM "$win"
for _ in $(seq 200); do kill -0 "$win" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$win" 2>/dev/null; then fail "the window still runs 20 s after SIGTERM"; fi

# 5. Removing the package leaves the user's data alone. The window made the
#    database and the audit key; a config file stands for the user's own.
home=$root/home/tester
"${as_user[@]}" sh -c 'printf "[model]\nprovider = \"demo\"\n" > ~/.config/warden/config.toml'
for f in .config/warden/audit.key .local/share/warden/warden.db .config/warden/config.toml; do
	[ -s "$home/$f" ] || fail "~/$f is missing after the window ran"
done
userdata() { (cd "$home" && find .config/warden .local/share/warden -type f -print0 | sort -z | xargs -0 sha256sum); }
userdata >"$work/data.before"
log "user data: $(wc -l <"$work/data.before") files in ~/.config/warden and ~/.local/share/warden"

in_root apt remove -y -q warden >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; fail "apt remove warden failed"; }
for f in /usr/bin/warden /usr/bin/warden-full /usr/bin/warden-desktop /usr/share/applications/warden.desktop /usr/lib/warden; do
	[ ! -e "$root$f" ] || fail "$f is still there after apt remove"
done
userdata | diff "$work/data.before" - || fail "apt remove changed the user's data"
log "apt remove: the programs are gone, the user's data is byte for byte the same"
in_root dpkg --purge warden >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "dpkg --purge warden failed"; }
in_root dpkg-query -W -f='${Status}' warden 2>/dev/null | grep -q installed && fail "warden is still known to dpkg after --purge"
userdata | diff "$work/data.before" - || fail "dpkg --purge changed the user's data"
log "dpkg --purge: the user's data is byte for byte the same"

log "passed in $((SECONDS - started)) s"
