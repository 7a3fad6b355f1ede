package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// maxDescriptionBytes bounds what a server can put in the model's context
// through one tool description.
const maxDescriptionBytes = 8 << 10

// trustLookupTimeout bounds the store read in Effects, which has no context.
const trustLookupTimeout = 5 * time.Second

// pingTimeout is how long a server that timed out a call gets to show it is
// still alive.
const pingTimeout = 2 * time.Second

// ToolAdapter is one server tool as a tools.Tool. It is a handle: every
// method reads the tool's current definition, so a description changed by
// the server is what the gate and the model see next.
type ToolAdapter struct {
	m      *Manager
	server string
	tool   string
	// session is whose trust the call is decided on ("" is the process
	// scope of the CLI).
	session string
}

var _ tools.Tool = (*ToolAdapter)(nil)

// Name is "mcp-tool:<server>/<tool>", also the call's signature.
func (a *ToolAdapter) Name() string { return ToolName(a.server, a.tool) }

// ModelName is the identifier form the model sees; Manager.Lookup maps it
// back.
func (a *ToolAdapter) ModelName() string { return ModelName(a.server, a.tool) }

// Server and MCPTool name the two halves.
func (a *ToolAdapter) Server() string  { return a.server }
func (a *ToolAdapter) MCPTool() string { return a.tool }

func (a *ToolAdapter) info() (*toolInfo, error) {
	s, err := a.m.server(a.server)
	if err != nil {
		return nil, err
	}
	ti, ok := s.tool(a.tool)
	if !ok {
		return nil, fmt.Errorf("MCP server %q no longer offers the tool %q", a.server, a.tool)
	}
	return ti, nil
}

// Description is the server's description, cut to a bounded size. It is
// data from the server, passed to the model as the tool's documentation.
func (a *ToolAdapter) Description() string {
	ti, err := a.info()
	if err != nil {
		return err.Error()
	}
	d := ti.description
	if len(d) > maxDescriptionBytes {
		d = (&budget{left: maxDescriptionBytes}).text(d)
	}
	return d
}

// Schema is the server's input schema, passed through.
func (a *ToolAdapter) Schema() json.RawMessage {
	ti, err := a.info()
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return ti.inputSchema
}

// Risk is a UI hint from the server's annotations.
func (a *ToolAdapter) Risk() policy.Risk {
	ti, err := a.info()
	switch {
	case err != nil:
		return policy.RiskMedium
	case ti.readOnlyHint:
		return policy.RiskLow
	case ti.destructive:
		return policy.RiskHigh
	}
	return policy.RiskMedium
}

// Effects validates the arguments against the schema and reports one Mcp
// effect whose Trusted flag the gate uses to decide UntrustedMcpServer.
func (a *ToolAdapter) Effects(args json.RawMessage, _ tools.Env) ([]policy.Effect, error) {
	ti, err := a.info()
	if err != nil {
		return nil, err
	}
	if _, err := ti.validateArgs(args); err != nil {
		return nil, err
	}
	return a.effects(ti), nil
}

// Prepare validates the arguments once (tools.Preparer): the gate then
// asks the prepared call for its effect — the server's trust, which a
// human may grant while the call waits — without decoding them again;
// the server call decodes them a second time.
func (a *ToolAdapter) Prepare(args json.RawMessage) (tools.Prepared, error) {
	ti, err := a.info()
	if err != nil {
		return nil, err
	}
	if _, err := ti.validateArgs(args); err != nil {
		return nil, err
	}
	return mcpCall{a: a, ti: ti, args: args}, nil
}

// mcpCall is one validated call of an MCP tool.
type mcpCall struct {
	a    *ToolAdapter
	ti   *toolInfo
	args json.RawMessage
}

func (c mcpCall) Args() json.RawMessage                      { return c.args }
func (c mcpCall) Effects(tools.Env) ([]policy.Effect, error) { return c.a.effects(c.ti), nil }
func (c mcpCall) Invoke(ctx context.Context, env tools.Env) (tools.Result, error) {
	return c.a.Invoke(ctx, c.args, env)
}

// effects is the call's one Mcp effect, its trust and hints read now (the
// server may have changed its tool since ti was read).
func (a *ToolAdapter) effects(ti *toolInfo) []policy.Effect {
	if cur, err := a.info(); err == nil {
		ti = cur
	}
	ctx, cancel := context.WithTimeout(context.Background(), trustLookupTimeout)
	defer cancel()
	trusted, _ := a.m.trusted(ctx, a.session, a.server, a.tool)
	return []policy.Effect{{
		Kind:         policy.EffectMcp,
		Server:       a.server,
		Tool:         a.tool,
		ReadOnlyHint: ti.readOnlyHint,
		Trusted:      trusted,
	}}
}

// Session is whose trust the adapter's calls are decided on.
func (a *ToolAdapter) Session() string { return a.session }

// trusted computes the trust of one tool in a session now.
func (m *Manager) trusted(ctx context.Context, sessionID, server, tool string) (bool, string) {
	s, err := m.server(server)
	if err != nil {
		return false, err.Error()
	}
	s.mu.Lock()
	ti, ok := s.tools[tool]
	appearedAt := s.appeared[tool]
	s.mu.Unlock()
	if !ok {
		return false, "tool not offered"
	}
	return m.trustVerdict(ctx, sessionID, s, ti, appearedAt)
}

// Invoke calls the tool. Every failure of the server (not running, exits,
// garbles the protocol, times out) comes back as an error result the model
// can read; only the caller's own cancellation is an error.
func (a *ToolAdapter) Invoke(ctx context.Context, args json.RawMessage, env tools.Env) (tools.Result, error) {
	s, err := a.m.server(a.server)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	// A caged server's connections during this call (and during a start
	// it causes) are decided for this call (cage.go).
	defer s.route.enter(env.Egress)()
	res, err := a.call(ctx, s, args)
	if lines := tools.RefusedConnections(env.Egress); len(lines) > 0 && err == nil {
		res.Content = append(res.Content, tools.Content{Type: "text",
			Text: fmt.Sprintf("\n[Warden refused connections of MCP server %q during this call]\n%s", a.server, strings.Join(lines, "\n"))})
	}
	return res, err
}

func (a *ToolAdapter) call(ctx context.Context, s *server, args json.RawMessage) (tools.Result, error) {
	cs, err := s.session(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.ErrorResult(err.Error()), nil
	}
	ti, ok := s.tool(a.tool)
	if !ok {
		return tools.ErrorResult(fmt.Sprintf("MCP server %q no longer offers the tool %q", a.server, a.tool)), nil
	}
	m, err := ti.validateArgs(args)
	if err != nil {
		return tools.ErrorResult(fmt.Sprintf("%s: %v", a.Name(), err)), nil
	}
	callCtx, cancel := context.WithTimeout(ctx, a.m.opts.CallTimeout)
	defer cancel()
	res, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: a.tool, Arguments: m})
	if err == nil {
		s.callSucceeded()
		return mapResult(res, a.m.opts.MaxResultBytes), nil
	}
	var wire *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case callCtx.Err() != nil:
		msg := fmt.Sprintf("%s timed out after %s; the server was asked to cancel the call", a.Name(), a.m.opts.CallTimeout)
		// A server that no longer answers a ping is stuck as a whole:
		// replace it rather than let every later call time out too.
		pingCtx, cancelPing := context.WithTimeout(ctx, pingTimeout)
		defer cancelPing()
		if err := cs.Ping(pingCtx, nil); err != nil && ctx.Err() == nil {
			s.dropSession(cs)
			msg += "; it does not answer pings either and will be restarted on the next call"
		}
		return tools.ErrorResult(msg), nil
	case errors.As(err, &wire):
		return tools.ErrorResult(fmt.Sprintf("MCP server %q rejected the call to %q: %s", a.server, a.tool, wire.Message)), nil
	}
	s.dropSession(cs)
	msg := fmt.Sprintf("MCP server %q failed during the call to %q (%v); it will be restarted on the next call", a.server, a.tool, err)
	if tail := logTail(s.logPath, 3); tail != "" {
		msg += ". Its stderr ends: " + tail
	}
	return tools.ErrorResult(strings.TrimSpace(msg)), nil
}
