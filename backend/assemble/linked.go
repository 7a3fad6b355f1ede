package assemble

import (
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/orgpolicy"
)

// Two builds of this package exist. The default one links every part of
// the graph. The slim one (build tag wardenslim, the `warden` binary a
// one-shot `warden tool` runs as) leaves out the parts whose libraries cost
// a process most of its start — the model providers (the Anthropic and
// OpenAI SDKs), the OpenTelemetry sender (gRPC, protobuf), the Settings
// service over both, the browser tools (playwright-go), computer.use (X11,
// D-Bus) and the MCP client (the MCP SDK, JSON Schema; the runtime reaches
// MCP only through mcpport, so it is the same runtime with no servers) — and
// keeps everything a call is decided and run with: the same Open, store,
// engine, cage, gate and its stages, built-in tools and events. A graph
// that would need a part the build lacks (a model, the export, a reviewer
// model, a configured MCP server, a tool of the parts above:
// Options.Tool) is refused by Open before anything is opened, with
// NotLinkedError, and the front end hands the whole command to the full
// binary (cmd/warden's handOver): never a weaker graph. full.go and slim.go
// hold the two sides.

// NotLinkedError says this build of the graph lacks a part the
// configuration asks for (Why names it); the full build never returns it.
type NotLinkedError struct{ Why string }

func (e *NotLinkedError) Error() string {
	return "this build of warden does not include " + e.Why + "; the full binary runs it"
}

// applyOrgTelemetry pins the organisation's [telemetry] over the user's
// (config.ApplyOrgTelemetry) before the store opens, so the outbox exists
// and the sender starts whenever the organisation requires the export.
func applyOrgTelemetry(c *config.Config, b *orgpolicy.Bundle, userPath string) error {
	if b == nil {
		return nil
	}
	return config.ApplyOrgTelemetry(c, b.Telemetry, b.File, userPath)
}
