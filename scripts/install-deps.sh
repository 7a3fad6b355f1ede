#!/usr/bin/env bash
# Installs what Warden needs to build, run and test, skipping what is present:
# Debian packages through apt, then the frontend's npm packages (npm ci, only
# when package-lock.json changed since the last install). Safe to run again.
# Needs Go and Node already on PATH; it checks their versions.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
	gcc libc6-dev pkg-config                 # cgo: the C SQLite of every build, the desktop app, -race
	libgtk-3-dev libwebkit2gtk-4.1-dev       # the Wails window (build tag webkit2_41)
	xvfb xauth imagemagick xdotool           # headless window, screenshots, input
	fonts-dejavu-core                        # a font for the window to render text with
	bubblewrap                               # the OS sandbox
	ripgrep                                  # the search tool
	chromium                                 # browser tool and end-to-end tests
	socat                                    # network test helpers
	x11-utils                                # xmessage, a window for the computer.use tests
	tmux                                     # the terminal UI end to end (make e2e-tui)
	git                                      # checkpoints; make fresh-clone
)

log() { printf 'install-deps: %s\n' "$*"; }

need_version() { # name have want: fail unless have >= want (dotted numbers)
	if [ "$(printf '%s\n%s\n' "$3" "$2" | sort -V | head -n1)" != "$3" ]; then
		log "$1 $2 is too old: need $3 or newer"
		exit 1
	fi
}

# Toolchains the project does not install itself.
command -v go >/dev/null || { log "go not found: install Go 1.26 or newer"; exit 1; }
command -v node >/dev/null || { log "node not found: install Node 20.19 or newer"; exit 1; }
command -v npm >/dev/null || { log "npm not found: it ships with Node"; exit 1; }
need_version go "$(go env GOVERSION | sed 's/^go//')" 1.26
need_version node "$(node --version | sed 's/^v//')" 20.19

# Debian packages.
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$pkg")
	fi
done
if [ "${#missing[@]}" -gt 0 ]; then
	sudo=()
	if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
	log "installing ${missing[*]}"
	"${sudo[@]}" apt-get update
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# npm packages: one stamp per folder records the lock file and Node version
# it was installed from, so an unchanged tree skips npm entirely.
npm_install() { # dir
	local dir=$1 stamp want
	stamp="$dir/node_modules/.warden-installed"
	want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1) node-$(node --version)"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return
	fi
	log "npm ci in $dir"
	npm ci --prefix "$dir" --no-audit --no-fund
	printf '%s\n' "$want" >"$stamp"
}
npm_install frontend
if [ -f testdeps/package.json ]; then
	npm_install testdeps
fi
# playwright-core, the driver the browser tool runs with Debian's chromium.
npm_install backend/tools/browser/driver
