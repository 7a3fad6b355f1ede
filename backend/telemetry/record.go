package telemetry

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// Record classes: warden.record says which one a record is, and the event
// name is "warden." + class.
const (
	ClassDecision   = "decision"
	ClassAsk        = "ask"
	ClassToolResult = "tool_result"
	ClassNetwork    = "network"
	ClassGrant      = "grant"
	ClassAxis       = "axis"
	ClassTrust      = "trust"
	ClassUndo       = "undo"
	ClassSession    = "session"
	ClassTelemetry  = "telemetry"
	// ClassAnswer is one answerer's or hook's answer to an ask, pass
	// included: the decision record names only the one that decided.
	ClassAnswer = "answer"
)

// Attribute keys shared by the sender and verify --against.
const (
	AttrRecord       = "warden.record"
	AttrSession      = "warden.session.id"
	AttrChainSeq     = "warden.chain.seq"
	AttrChainHash    = "warden.chain.hash"
	AttrPrevExported = "warden.chain.prev_exported"
	AttrEventSeq     = "warden.event.seq"
	AttrEventKind    = "warden.event.kind"
	AttrLayer        = "warden.decision.layer"
	AttrLayerDetail  = "warden.decision.layer_detail"
)

// classOf is the record class of an exported event, "" for the rest.
func classOf(e store.Event) string {
	switch x := e.(type) {
	case store.PermissionGranted, store.PermissionDenied:
		return ClassDecision
	case store.PermissionRequested:
		return ClassAsk
	case store.ToolInvocationCompleted, store.ToolInvocationFailed:
		return ClassToolResult
	case store.NetworkConnection:
		return ClassNetwork
	case store.GrantAdded, store.GrantRevoked:
		return ClassGrant
	case store.ApprovalPolicyChanged, store.SandboxPolicyChanged, store.PlanningEntered, store.PlanningExited:
		return ClassAxis
	case store.McpServerTrusted, store.McpServerUntrusted:
		return ClassTrust
	case store.WorkspaceChanged:
		if x.Cause == store.CauseUndo || x.Cause == store.CauseRestore {
			return ClassUndo
		}
	case store.SessionArchived, store.SessionRestored:
		return ClassSession
	case store.TelemetryDropped:
		return ClassTelemetry
	case store.AnswererAnswered:
		return ClassAnswer
	}
	return ""
}

// Exported reports whether an event is mirrored to the collector; it is the
// store's outbox pick (store.WithOutbox).
func Exported(e store.Event) bool { return classOf(e) != "" }

// Record is one log record before the SDK turns it into OTLP.
type Record struct {
	Time      time.Time
	EventName string
	Severity  log.Severity
	Body      string
	Attrs     []attribute.KeyValue
}

// Lookup is what building a record reads besides its event; *store.Store
// is one.
type Lookup interface {
	Session(ctx context.Context, id string) (store.Session, error)
	AxesAt(ctx context.Context, sessionID string, version int64) (store.Axes, error)
	CallArgs(ctx context.Context, sessionID, callID string) (json.RawMessage, bool, error)
	AskedAt(ctx context.Context, sessionID, requestID string) (time.Time, bool, error)
}

// BuildOptions are the privacy choices of [telemetry].
type BuildOptions struct {
	LogArguments bool
}

// Build turns one queued event into its record.
func Build(ctx context.Context, lk Lookup, it store.OutboxItem, o BuildOptions) (Record, error) {
	class := classOf(it.Event)
	if class == "" {
		return Record{}, fmt.Errorf("telemetry: %s events are not exported", it.Kind)
	}
	r := Record{Time: it.Time, EventName: "warden." + class, Severity: log.SeverityInfo}
	b := attrs{}
	b.str(AttrRecord, class)
	b.str(AttrSession, it.SessionID)
	b.str(AttrEventKind, string(it.Kind))
	b.int(AttrEventSeq, it.Seq)
	b.int(AttrChainSeq, it.Version)
	b.str(AttrChainHash, hex.EncodeToString(it.Hash))
	b.int(AttrPrevExported, it.PrevVersion)
	ss, err := lk.Session(ctx, it.SessionID)
	if err != nil {
		return r, fmt.Errorf("telemetry: session of seq %d: %w", it.Seq, err)
	}
	b.str("warden.workspace", ss.Workspace)
	b.str("warden.workspace.id", ss.WorkspaceID)
	if ss.ParentID != "" {
		b.str("warden.session.parent_id", ss.ParentID)
	}
	ax, err := lk.AxesAt(ctx, it.SessionID, it.Version)
	if err != nil {
		return r, err
	}
	b.str("warden.axes.approval", ax.Approval.String())
	b.str("warden.axes.sandbox", ax.Sandbox.Kind.String())
	b.boolean("warden.axes.network", ax.Sandbox.NetworkAccess || ax.Sandbox.Kind == policy.DangerFullAccess)
	b.boolean("warden.axes.planning", ax.Planning)

	args := func(callID string) {
		raw, ok, err := lk.CallArgs(ctx, it.SessionID, callID)
		if err != nil || !ok {
			return
		}
		sum, size := argsDigest(raw)
		b.str("warden.call.args.sha256", sum)
		b.int("warden.call.args.size", int64(size))
		if o.LogArguments {
			cmd, paths := argText(raw)
			b.str("warden.call.command", cmd)
			if len(paths) > 0 {
				b.kv(attribute.StringSlice("warden.call.paths", paths))
			}
		}
	}
	trace := func(steps []policy.Step) {
		if !o.LogArguments || len(steps) == 0 {
			return
		}
		s := make([]string, len(steps))
		for i, st := range steps {
			s[i] = st.Step + ": " + st.Saw + " → " + st.Concluded
		}
		b.kv(attribute.StringSlice("warden.decision.trace", s))
	}
	var w words
	switch e := it.Event.(type) {
	case store.PermissionGranted:
		layer, detail := grantedLayer(e)
		b.call(e.CallID, e.RequestID, e.Tool)
		b.str("warden.signature", safeSignature(e.Signature, o.LogArguments))
		b.str("warden.decision", string(policy.VerdictAllow))
		b.str("warden.decision.source", safeSource(e.Source, o.LogArguments))
		b.str(AttrLayer, string(layer))
		b.str(AttrLayerDetail, safeSource(detail, o.LogArguments))
		b.str("warden.decision.via", e.Via)
		b.kv(attribute.StringSlice("warden.decision.reasons", []string{}))
		b.askWait(ctx, lk, it, e.RequestID)
		args(e.CallID)
		trace(e.Trace)
		w = words{kind: "allowed", tool: e.Tool, source: sourceText(e.Source), summary: safeSignature(e.Signature, o.LogArguments)}
	case store.PermissionDenied:
		layer, detail := deniedLayer(e)
		r.Severity = log.SeverityWarn
		b.call(e.CallID, e.RequestID, e.Tool)
		b.str("warden.signature", safeSignature(e.Signature, o.LogArguments))
		b.str("warden.decision", string(policy.VerdictDeny))
		b.str("warden.decision.reason", string(e.Reason))
		b.kv(attribute.StringSlice("warden.decision.reasons", []string{string(e.Reason)}))
		b.str("warden.decision.denied_by", string(e.By))
		b.str(AttrLayer, string(layer))
		b.str(AttrLayerDetail, safeSource(detail, o.LogArguments))
		b.str("warden.decision.via", e.Via)
		b.str("warden.decision.remedy", e.Remedy)
		if o.LogArguments {
			b.str("warden.decision.detail", e.Detail)
		}
		b.askWait(ctx, lk, it, e.RequestID)
		args(e.CallID)
		trace(e.Trace)
		sum := reasonLabel(e.Reason)
		if sig := safeSignature(e.Signature, o.LogArguments); sig != "" {
			sum = sig + " — " + sum
		}
		if o.LogArguments && e.Detail != "" {
			sum += ": " + e.Detail
		}
		w = words{kind: "denied", tool: e.Tool, source: deniedByText(e.By), summary: sum}
	case store.PermissionRequested:
		b.call(e.CallID, e.RequestID, e.Tool)
		b.str("warden.signature", safeSignature(e.Signature, o.LogArguments))
		b.str("warden.decision", string(policy.VerdictAsk))
		b.kv(attribute.StringSlice("warden.decision.reasons", reasonStrings(e.Reasons)))
		b.str("warden.risk", string(e.Risk))
		if e.Args != nil {
			sum, size := argsDigest(e.Args)
			b.str("warden.call.args.sha256", sum)
			b.int("warden.call.args.size", int64(size))
			if o.LogArguments {
				cmd, paths := argText(e.Args)
				b.str("warden.call.command", cmd)
				if len(paths) > 0 {
					b.kv(attribute.StringSlice("warden.call.paths", paths))
				}
			}
		}
		trace(e.Trace)
		labels := make([]string, len(e.Reasons))
		for i, rs := range e.Reasons {
			labels[i] = reasonLabel(rs)
		}
		w = words{kind: "asked", tool: e.Tool, source: "ask", summary: safeSignature(e.Signature, o.LogArguments) + " — " + strings.Join(labels, ", ")}
	case store.ToolInvocationCompleted:
		b.call(e.CallID, e.RequestID, e.Tool)
		b.str("warden.result", "ok")
		if e.ExitCode != nil {
			b.int("warden.result.exit_code", int64(*e.ExitCode))
		}
		b.int("warden.result.duration_ms", e.DurationMs)
		args(e.CallID)
		sum := fmt.Sprintf("in %d ms", e.DurationMs)
		if e.ExitCode != nil {
			sum = fmt.Sprintf("exit %d %s", *e.ExitCode, sum)
		}
		w = words{kind: "completed", tool: e.Tool, summary: sum}
	case store.ToolInvocationFailed:
		r.Severity = log.SeverityWarn
		b.call(e.CallID, e.RequestID, e.Tool)
		b.str("warden.result", "error")
		b.str("warden.result.via", e.Via)
		b.int("warden.result.duration_ms", e.DurationMs)
		sum, size := argsDigest(json.RawMessage(e.Error))
		b.str("warden.result.error.sha256", sum)
		b.int("warden.result.error.size", int64(size))
		summary := fmt.Sprintf("failed (%d bytes of error text)", size)
		if o.LogArguments {
			b.str("warden.result.error", e.Error)
			summary = e.Error
		}
		args(e.CallID)
		w = words{kind: "failed", tool: e.Tool, summary: summary}
	case store.NetworkConnection:
		layer, detail := networkLayer(e)
		b.call(e.CallID, "", "")
		b.str("warden.net.host", e.Host)
		b.int("warden.net.port", int64(e.Port))
		b.str("warden.net.proto", e.Proto)
		b.str("warden.signature", fmt.Sprintf("net:%s:%d", e.Host, e.Port))
		verdict, src := policy.VerdictAllow, e.AllowedBy
		if !e.Allowed {
			verdict, src = policy.VerdictDeny, ""
			r.Severity = log.SeverityWarn
			b.str("warden.decision.reason", e.Reason)
		}
		b.str("warden.decision", string(verdict))
		b.str("warden.decision.source", src)
		b.str(AttrLayer, string(layer))
		b.str(AttrLayerDetail, detail)
		b.int("warden.net.bytes_up", e.BytesUp)
		b.int("warden.net.bytes_down", e.BytesDown)
		b.int("warden.net.duration_ms", e.DurationMs)
		if e.Error != "" {
			b.str("warden.net.error", e.Error)
		}
		state := "allowed " + e.AllowedBy
		if !e.Allowed {
			state = "refused " + e.Reason
		}
		w = words{kind: "network", source: state, summary: fmt.Sprintf("%s:%d — %d B up, %d B down", e.Host, e.Port, e.BytesUp, e.BytesDown)}
	case store.GrantAdded:
		b.str("warden.grant.id", e.Grant.ID)
		b.str("warden.grant.scope", string(e.Grant.Scope))
		b.str("warden.signature", safeSignature(e.Grant.Signature, o.LogArguments))
		b.kv(attribute.StringSlice("warden.grant.reasons", reasonStrings(e.Grant.Reasons)))
		b.str("warden.request.id", e.RequestID)
		if !e.Grant.ExpiresAt.IsZero() {
			b.str("warden.grant.expires", e.Grant.ExpiresAt.UTC().Format(time.RFC3339))
		}
		w = words{kind: "grant added", source: string(e.Grant.Scope), summary: safeSignature(e.Grant.Signature, o.LogArguments)}
	case store.GrantRevoked:
		b.str("warden.grant.id", e.GrantID)
		b.str("warden.signature", safeSignature(e.Signature, o.LogArguments))
		w = words{kind: "grant revoked", summary: safeSignature(e.Signature, o.LogArguments)}
	case store.ApprovalPolicyChanged:
		b.axis("approval", e.From.String(), e.To.String(), e.By)
		w = words{kind: "approval changed", source: e.By, summary: approvalText(e.From) + " → " + approvalText(e.To)}
	case store.SandboxPolicyChanged:
		b.axis("sandbox", sandboxCode(e.From), sandboxCode(e.To), e.By)
		w = words{kind: "sandbox changed", source: e.By, summary: sandboxText(e.From) + " → " + sandboxText(e.To)}
	case store.PlanningEntered:
		b.axis("planning", "off", "on", e.By)
		w = words{kind: "planning entered", source: e.By, summary: "planning freeze on"}
	case store.PlanningExited:
		b.axis("planning", "on", "off", e.By)
		w = words{kind: "planning exited", source: e.By, summary: "planning freeze lifted"}
	case store.McpServerTrusted:
		b.str("warden.mcp.server", e.Server)
		b.str("warden.mcp.config_hash", e.ConfigHash)
		b.boolean("warden.mcp.persistent", e.Persistent)
		b.str("warden.trust", "trusted")
		w = words{kind: "MCP server trusted", summary: e.Server}
	case store.McpServerUntrusted:
		b.str("warden.mcp.server", e.Server)
		b.str("warden.trust", "untrusted")
		w = words{kind: "MCP server untrusted", summary: e.Server}
	case store.WorkspaceChanged:
		b.call(e.CallID, "", e.Tool)
		b.str("warden.undo.cause", e.Cause)
		b.str("warden.undo.of", e.UndoOf)
		b.str("warden.undo.restore_to", e.RestoreTo)
		b.int("warden.undo.files", int64(len(e.Files)+e.Omitted))
		if e.Error != "" {
			b.str("warden.undo.error", e.Error)
		}
		sum := fmt.Sprintf("%d files", len(e.Files)+e.Omitted)
		if e.Cause == store.CauseUndo {
			sum = "undo of " + e.UndoOf + ": " + sum
		} else {
			sum = "restore to " + e.RestoreTo + ": " + sum
		}
		w = words{kind: e.Cause, summary: sum}
	case store.SessionArchived:
		b.str("warden.by", e.By)
		w = words{kind: "session archived", source: e.By}
	case store.SessionRestored:
		b.str("warden.by", e.By)
		w = words{kind: "session restored", source: e.By}
	case store.AnswererAnswered:
		b.call(e.CallID, e.RequestID, e.Tool)
		b.str("warden.answerer.kind", e.Kind)
		b.str("warden.answerer.name", e.Name)
		b.str("warden.answerer.answer", e.Answer)
		b.int("warden.answerer.latency_ms", e.LatencyMs)
		b.str(AttrLayer, string(policy.LayerAnswerer))
		// The why may quote the command: only with log_arguments.
		if o.LogArguments {
			b.str("warden.answerer.reason", e.Reason)
		}
		who := e.Kind
		if e.Name != "" {
			who += " " + e.Name
		}
		sum := fmt.Sprintf("%s in %d ms", e.Answer, e.LatencyMs)
		if o.LogArguments && e.Reason != "" {
			sum += ": " + e.Reason
		}
		w = words{kind: "answer", tool: e.Tool, source: who, summary: sum}
	case store.TelemetryDropped:
		r.Severity = log.SeverityWarn
		b.int("warden.telemetry.dropped", e.Count)
		b.str("warden.telemetry.dropped_versions", e.Versions)
		b.str("warden.telemetry.reason", e.Reason)
		w = words{kind: "telemetry dropped", summary: fmt.Sprintf("%d records never sent (versions %s): %s", e.Count, e.Versions, e.Reason)}
	}
	r.Body = w.String()
	r.Attrs = b.list
	return r, nil
}

// attrs collects a record's attributes; empty strings are left out.
type attrs struct{ list []attribute.KeyValue }

func (a *attrs) kv(kv attribute.KeyValue) { a.list = append(a.list, kv) }
func (a *attrs) str(k, v string) {
	if v != "" {
		a.kv(attribute.String(k, v))
	}
}
func (a *attrs) int(k string, v int64)    { a.kv(attribute.Int64(k, v)) }
func (a *attrs) boolean(k string, v bool) { a.kv(attribute.Bool(k, v)) }

func (a *attrs) call(callID, requestID, tool string) {
	a.str("warden.call.id", callID)
	a.str("warden.request.id", requestID)
	a.str("warden.tool", tool)
}

func (a *attrs) axis(name, from, to, by string) {
	a.str("warden.axis", name)
	a.str("warden.axis.from", from)
	a.str("warden.axis.to", to)
	a.str("warden.by", by)
}

// askWait adds how long the ask this answer closes waited, when there was
// one.
func (a *attrs) askWait(ctx context.Context, lk Lookup, it store.OutboxItem, requestID string) {
	at, ok, err := lk.AskedAt(ctx, it.SessionID, requestID)
	if err != nil || !ok {
		return
	}
	a.int("warden.ask.wait_ms", it.Time.Sub(at).Milliseconds())
}

func reasonStrings(rs []policy.Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

func sandboxCode(s policy.SandboxPolicy) string {
	c := s.Kind.String()
	if s.Kind == policy.WorkspaceWrite && s.NetworkAccess {
		c += "+network"
	}
	return c
}

// safeSource keeps a grant's or answer's source, hashing the signature in
// it when that spells a command or a path.
func safeSource(src string, logArgs bool) string {
	for _, p := range []string{"session-grant:", "workspace-rule:"} {
		if sig, ok := strings.CutPrefix(src, p); ok {
			return p + safeSignature(sig, logArgs)
		}
	}
	return src
}
