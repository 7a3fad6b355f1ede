#!/usr/bin/env bash
# Development mode: the Vite dev server (hot reload of the frontend) and a dev
# build of the desktop app pointed at it. Go changes need a restart (Ctrl+C,
# then `make dev` again).
#
# This does what `wails dev` does, without the Wails CLI: v2.9.2's `wails dev`
# runs `go mod tidy` whatever its flags say, which would drop modules that
# go.mod pins for packages not yet importing them.
set -euo pipefail
cd "$(dirname "$0")/.."

VITE_PORT=${VITE_PORT:-5173}
DEVSERVER=${DEVSERVER:-localhost:34115}
LDFLAGS=${LDFLAGS:-}
BIN=build/bin/warden-desktop-dev

scripts/bindings.sh --write
go build -tags dev,webkit2_41 -ldflags "$LDFLAGS" -o "$BIN" .

# exec, so $! is Vite itself and the trap below stops it.
(cd frontend && exec ./node_modules/.bin/vite --port "$VITE_PORT" --strictPort) &
vite=$!
trap 'kill "$vite" 2>/dev/null || true' EXIT

url="http://localhost:$VITE_PORT/"
for _ in $(seq 1 120); do
	if node -e "fetch('$url').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then
		break
	fi
	if ! kill -0 "$vite" 2>/dev/null; then
		echo "dev: the Vite dev server exited" >&2
		exit 1
	fi
	sleep 0.5
done

echo "dev: frontend from $url; edit frontend/src and the window reloads"
frontenddevserverurl="$url" devserver="$DEVSERVER" "./$BIN"
