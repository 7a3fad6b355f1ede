# Warden: `make run` opens the desktop app, `make test` runs every check.
# Every target that builds or tests installs what is missing first
# (scripts/install-deps.sh, through the `deps` prerequisite), so each works
# on a fresh clone; `make fresh-clone` checks that for `make package`.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

ifeq ($(origin VERSION),undefined)
VERSION := $(shell v=$$(git describe --tags --always --dirty 2>/dev/null) && echo "0.1.0-dev+$$v" || echo 0.1.0-dev)
endif
LDFLAGS := -X main.version=$(VERSION)
DESKTOP_TAGS := desktop,production,webkit2_41
DESKTOP_BIN := build/bin/warden-desktop
XVFB := xvfb-run -a -s "-screen 0 1280x800x24"

.PHONY: help display deps run dev desktop frontend cli test check-bindings bindings tidy vet gotest typecheck vitest smoke e2e e2e-audit e2e-tui bench clean package package-check package-fresh fresh-clone readme-check screenshot

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

deps: ## install missing apt and npm packages
	@scripts/install-deps.sh

run: display deps desktop ## install, build and open the desktop app
	./$(DESKTOP_BIN)

display:
	@if [ -z "$${DISPLAY:-}" ] && [ -z "$${WAYLAND_DISPLAY:-}" ]; then \
		echo "make $(MAKECMDGOALS): no display to open a window on. Headless, use: xvfb-run -a make $(MAKECMDGOALS)"; exit 1; fi

dev: display deps ## desktop app with hot reload of the frontend (scripts/dev.sh)
	LDFLAGS="$(LDFLAGS)" scripts/dev.sh

# The frontend is rebuilt only when one of its sources changed since the last
# build, so a second `make run` starts in seconds.
FRONTEND_SRC := $(shell find frontend/src frontend/wailsjs -type f 2>/dev/null) frontend/index.html \
	frontend/package.json frontend/package-lock.json frontend/vite.config.ts frontend/tsconfig.json

frontend: deps frontend/dist/index.html ## type-check and build the frontend into frontend/dist (when a source changed)

frontend/dist/index.html: $(FRONTEND_SRC) | deps
	cd frontend && npm run build

desktop: frontend ## build the desktop app into build/bin/warden-desktop
	go build -tags $(DESKTOP_TAGS) -ldflags "-s -w $(LDFLAGS)" -o $(DESKTOP_BIN) .

# bin/warden is the slim build (tag wardenslim): it runs `warden tool` and
# `--version` itself and execs bin/warden-full, every command, for the rest
# (cmd/warden/slim.go), so a one-shot call does not load the model SDKs,
# OpenTelemetry and the TUI. Both come from one source tree and one version.
# cgo: the store is the C SQLite (backend/store/doc.go), so deps (gcc).
cli: deps ## build the headless CLI into bin/warden and bin/warden-full
	CGO_ENABLED=1 go build -tags wardenslim -ldflags "$(LDFLAGS)" -o bin/warden ./cmd/warden
	CGO_ENABLED=1 go build -ldflags "$(LDFLAGS)" -o bin/warden-full ./cmd/warden

bindings: deps ## regenerate app/api_gen.go, the bridge's api.gen.ts and frontend/wailsjs from backend/api
	scripts/bindings.sh --write

check-bindings: deps ## fail if anything generated from backend/api is stale
	scripts/bindings.sh --check

tidy: ## fail when go.mod or go.sum differ from what `go mod tidy` writes
	@go mod tidy -diff || { echo "make tidy: go.mod/go.sum are not tidy (the diff above); run go mod tidy" >&2; exit 1; }

vet: deps ## go vet, the smoke test's and the slim CLI's build tags included
	go vet ./...
	go vet -tags smoke ./tests/smoke/
	go vet -tags wardenslim ./cmd/warden/ ./backend/assemble/

gotest: deps ## Go tests with the race detector
	go test -race -timeout 20m ./...

typecheck: deps ## vue-tsc over the frontend
	cd frontend && npx vue-tsc --noEmit

vitest: deps ## frontend unit and component tests
	cd frontend && npx vitest run

smoke: desktop ## start the real window under Xvfb, screenshot it, quit it
	WARDEN_VERSION="$(VERSION)" $(XVFB) go test -tags smoke -count=1 -v ./tests/smoke/

e2e: frontend cli ## the chat, settings and MCP end to end: Chromium against warden serve (screenshots in artifacts/e2e, every window state in artifacts/screens)
	node e2e/chat.e2e.mjs
	node e2e/settings.e2e.mjs
	node e2e/checkpoint.e2e.mjs
	node e2e/network.e2e.mjs
	node e2e/screens.e2e.mjs
	node e2e/journey.e2e.mjs
	node e2e/remote.e2e.mjs
	node e2e/answerers.e2e.mjs
	node e2e/answerers-refresh.e2e.mjs
	./e2e/org.sh
	CGO_ENABLED=0 go build -o bin/mcp-testserver ./backend/mcp/cmd/mcp-testserver
	node e2e/mcp.e2e.mjs

e2e-audit: frontend cli ## the audit trail at 20,000 rows in Chromium (AUDIT_ROWS=100000 for the full measurement)
	node e2e/audit.e2e.mjs

e2e-tui: deps cli ## warden tui in a real terminal: tmux, a script model, the permission modal, signals
	go test -tags e2e_tui -count=1 -v ./tests/tui/

test: deps check-bindings tidy vet gotest typecheck vitest cli smoke e2e e2e-audit e2e-tui package-check fresh-clone readme-check ## every check (what CI runs)
	@echo "make test: all checks passed"

package: desktop cli ## build dist/warden_<version>_amd64.deb (nfpm, its own module in scripts/package)
	cd scripts/package && go run . -version "$(VERSION)" -root ../.. -out ../../dist

package-check: package ## inspect the .deb, unpack it into a temp root, run its CLI and start its window under Xvfb
	cd scripts/package && go vet -tags packagecheck . && go test -count=1 . && \
		$(XVFB) go test -tags packagecheck -count=1 -v -run 'TestPackage|TestInstalled|TestDepends|TestDesktopEntry' . \
		-args -dist "$(CURDIR)/dist" -version "$(VERSION)"

fresh-clone: deps ## `make package` in a fresh `git clone` of this checkout's HEAD, as a new user's first command (a few minutes)
	scripts/fresh-clone.sh

readme-check: deps desktop cli ## run every command of README.md (tests/readme: the safe ones for real, the window under Xvfb)
	go test -tags readme -count=1 -v ./tests/readme/

screenshot: frontend cli ## re-shoot docs/screenshot.png: a real demo session in Chromium against warden serve (scripts/screenshot.mjs)
	node scripts/screenshot.mjs

package-fresh: package ## as root: a real `apt install` of the .deb on a fresh Debian 12 (mmdebstrap, minutes; not in make test)
	scripts/package/fresh.sh "dist/$$(cd scripts/package && go run . -version "$(VERSION)" -name)"

bench: frontend cli ## Warden against bwrap, srt, codex and Gemini CLI's policy engine, and the audit trail at 100,000 rows in Chromium; writes docs/benchmarks.md
	bash bench/run.sh

clean: ## remove build outputs
	rm -rf bin build/bin frontend/dist artifacts
