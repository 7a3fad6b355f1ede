#!/usr/bin/env bash
# Regenerates everything produced from the one API definition (backend/api):
# first the window's methods (app/api_gen.go) and the bridge's TypeScript
# (frontend/src/bridge/api.gen.ts) with scripts/apigen, then the Wails
# bindings (frontend/wailsjs) from the Go types bound in main.go, without the
# Wails CLI: a build with the `bindings` tag writes them when run next to a
# wails.json.
#   scripts/bindings.sh --write   rewrite all three
#   scripts/bindings.sh --check   fail if any of them is stale
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

# The Wails bindings are made from the app as built, so api_gen.go first.
stale=0
if ! go run ./scripts/apigen "-${mode#--}"; then
	[ "$mode" = --write ] && exit 1
	stale=1
fi

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
	echo "bindings: wrote app/api_gen.go, frontend/src/bridge/api.gen.ts and frontend/wailsjs"
	exit 0
fi
if ! diff -ru frontend/wailsjs "$tmp/out/wailsjs"; then
	echo "bindings: frontend/wailsjs is stale; run 'make bindings' and commit the result" >&2
	stale=1
fi
if [ "$stale" != 0 ]; then
	exit 1
fi
echo "bindings: up to date"
