#!/usr/bin/env bash
# The organisation policy end to end: runs org.e2e.mjs with a signed policy
# mounted over /etc/warden in a private mount namespace (/etc is an overlay
# there: the real /etc/warden is never written). Needs root, unshare,
# overlayfs and ssh-keygen; make e2e runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} != --inside ]]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/warden-org-e2e-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/etc-warden" "$tmp/keys" "$tmp/ov/upper" "$tmp/ov/work"
	chmod 755 "$tmp/etc-warden"
	cp e2e/org/policy.toml "$tmp/etc-warden/policy.toml"
	ssh-keygen -q -t ed25519 -N "" -C warden-policy -f "$tmp/keys/org"
	echo "policy@example.org namespaces=\"warden-policy\" $(cut -d' ' -f1,2 "$tmp/keys/org.pub")" >"$tmp/etc-warden/allowed_signers"
	ssh-keygen -q -Y sign -f "$tmp/keys/org" -n warden-policy "$tmp/etc-warden/policy.toml"
	chmod 644 "$tmp/etc-warden"/*
	exec unshare -m --propagation private bash -c '
		set -e
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/ov/upper,workdir=$1/ov/work" /etc
		mkdir -p /etc/warden
		mount --bind "$1/etc-warden" /etc/warden
		exec "$2" --inside' bash "$tmp" "$0"
fi
node e2e/org.e2e.mjs
