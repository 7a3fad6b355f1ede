#!/usr/bin/env bash
# `make package` on a fresh `git clone` of this checkout's HEAD: the first
# command a new user runs. Nothing built or installed comes with a clone (no
# node_modules, no frontend/dist, no binaries), so this fails when a target
# relies on something only an earlier `make` left behind. The Go build and
# npm caches are the machine's own, as they are for a user who built anything
# before; a cold first build is measured separately (README, Quick start).
# Uncommitted changes are not part of the clone: CI runs on a clean checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/warden-fresh-clone.XXXXXX")
trap 'rm -rf "$work"' EXIT
log() { printf 'fresh-clone: %s\n' "$*"; }

git clone --quiet --no-hardlinks "$root" "$work/warden"
cd "$work/warden"
for d in frontend/node_modules testdeps/node_modules backend/tools/browser/driver/node_modules frontend/dist bin build/bin dist; do
	if [ -e "$d" ]; then
		log "$d is in a fresh clone: it must not be committed"
		exit 1
	fi
done

start=$(date +%s)
if ! make package >"$work/make.log" 2>&1; then
	tail -n 40 "$work/make.log"
	log "make package failed on a fresh clone (log above)"
	exit 1
fi
took=$(($(date +%s) - start))

debs=(dist/warden_*_amd64.deb)
if [ ! -f "${debs[0]}" ]; then
	log "make package wrote no dist/warden_*_amd64.deb"
	exit 1
fi
contents=$(dpkg-deb --contents "${debs[0]}")
for want in ./usr/bin/warden ./usr/bin/warden-full ./usr/bin/warden-desktop; do
	if ! grep -q " $want\$" <<<"$contents"; then
		log "${debs[0]} lacks $want"
		exit 1
	fi
done
log "ok: make package on a fresh clone wrote $(basename "${debs[0]}") in ${took}s"
