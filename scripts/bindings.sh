#!/usr/bin/env bash
# Regenerates the frontend's Wails bindings (frontend/wailsjs) from the Go
# types bound in main.go, without the Wails CLI: a build with the `bindings`
# tag writes them when run next to a wails.json.
#   scripts/bindings.sh --write   replace frontend/wailsjs
#   scripts/bindings.sh --check   fail if frontend/wailsjs is stale
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
--write | --check) ;;
*)
	echo "usage: $0 --write|--check" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags bindings,webkit2_41 -o "$tmp/wardenbindings" .
mkdir "$tmp/out"
printf '{"name":"warden","wailsjsdir":"."}\n' >"$tmp/out/wails.json"
if ! (cd "$tmp/out" && "$tmp/wardenbindings") >"$tmp/log" 2>&1; then
	cat "$tmp/log" >&2
	echo "bindings: generation failed" >&2
	exit 1
fi

# Wails marks everything executable; these are source files.
find "$tmp/out/wailsjs" -type f -exec chmod 0644 {} +

if [ "$mode" = --write ]; then
	rm -rf frontend/wailsjs
	cp -r "$tmp/out/wailsjs" frontend/wailsjs
	echo "bindings: wrote frontend/wailsjs"
	exit 0
fi
if ! diff -ru frontend/wailsjs "$tmp/out/wailsjs"; then
	echo "bindings: frontend/wailsjs is stale; run 'make bindings' and commit the result" >&2
	exit 1
fi
echo "bindings: up to date"
