// Package mcp adapts the tools of external MCP servers into Warden tools and
// keeps the trust that lets them run without a prompt.
//
// A Pool holds one Manager per workspace, made when a session of that
// workspace first needs it: the servers of the user's config.toml
// [mcp.servers] and of the workspace (.warden/config.toml [mcp.servers],
// .mcp.json), running in the workspace. The pool watches those files; a
// changed launch config stops the server and voids its trust.
//
// Servers start lazily, restart after a crash with backoff, and write their
// stderr to a per-server log file. Each server tool becomes a tools.Tool
// named "mcp-tool:<server>/<tool>" bound to one session, whose Effects carry
// a Trusted flag computed from that session's trust: its own session trust
// (in memory, gone with the session) or the workspace's persistent trust
// (the store). The server's launch config hash — keyed, and covering env
// values — and the tool's description/schema hash must both match what the
// human trusted, and the tool must not have appeared through
// tools/list_changed since. A tool whose description or schema changed is
// not offered to the model until re-trusted. Tool descriptions are data:
// this package stores and compares them, never interprets them.
//
// Servers from a workspace come with the repository, so starting one runs
// someone else's command line: they are not started until their launch
// config is trusted (Options.StartUntrustedWorkspaceServers opts out).
// Stdio servers inherit only HOME, LOGNAME, PATH, SHELL, TERM and USER from
// Warden's environment, plus the variables their config names.
//
// A stdio server runs in the OS cage of shell commands (Options.Cage) unless
// its config says sandbox = "none" (cage.go): the workspace writable, the
// secrets hidden, its own network namespace, the network only through
// Warden's proxy. A server lives across calls, so each destination it
// connects to is decided with the Egress of the tool call in flight (its
// session, its approval policy, its [network] lists; the ask names the host
// and the MCP tool; the connection event carries that call's id), the oldest
// call when several overlap; with no call in flight, a connection is refused
// and written to the server's log.
package mcp
