package tui

// Changing the two axes (approval, sandbox) from the keys and the
// composer, with a confirmation before a widening that needs one.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

// confirmation is a yes/no question before an axis change that needs
// one. No is the default: Enter keeps things as they are, only y changes
// them. A cycle key (B, Shift+Tab) on the question steps past the change
// to the next value of the cycle, so every value is reachable without
// saying yes to the one asked about.
type confirmation struct {
	title, text string
	yes, keep   string // "switch to Full access", "keep Workspace write"
	apply       func() error
	skipKeys    []string
	skipLabel   string // "skip to Read only"
	skip        func()
}

func (m *Model) onConfirmKey(key string) (tea.Model, tea.Cmd) {
	c := m.confirm
	switch key {
	case "y", "Y":
		m.confirm = nil
		if err := c.apply(); err != nil {
			m.setNotice(true, "%v", err)
		}
		return m, nil
	case "n", "N", "esc", "enter":
		m.confirm = nil
		m.setNotice(false, "Unchanged: %s.", c.keep)
		return m, nil
	}
	for _, k := range c.skipKeys {
		if key == k && c.skip != nil {
			m.confirm = nil
			c.skip()
		}
	}
	return m, nil
}

// nextApproval is the approval cycle of Shift+Tab: On request → Always
// ask → Never ask → On request.
var nextApproval = map[policy.ApprovalPolicy]policy.ApprovalPolicy{policy.OnRequest: policy.Always,
	policy.Always: policy.Never, policy.Never: policy.OnRequest}

// nextSandbox is the sandbox cycle of B: Read only → Workspace write →
// Full access → Read only.
var nextSandbox = map[policy.SandboxKind]policy.SandboxKind{policy.ReadOnly: policy.WorkspaceWrite,
	policy.WorkspaceWrite: policy.DangerFullAccess, policy.DangerFullAccess: policy.ReadOnly}

// cycleApproval steps the approval policy one value on (Never ask under
// Full access only after a yes; Shift+Tab on that question skips it).
func (m *Model) cycleApproval() {
	next := nextApproval[m.sess.Approval]
	m.setApproval(next)
	if m.confirm != nil {
		after := nextApproval[next]
		m.confirm.skipKeys, m.confirm.skipLabel = []string{"shift+tab"}, "Shift+Tab skip to "+ApprovalLabel(after)
		m.confirm.skip = func() { m.setApproval(after) }
	}
}

// cycleSandbox steps the sandbox one value on (Full access only after a
// yes; B on that question skips to Read only).
func (m *Model) cycleSandbox() {
	sb := m.sess.Sandbox
	sb.Kind = nextSandbox[sb.Kind]
	m.setSandbox(sb)
	if m.confirm != nil {
		after := sb
		after.Kind = nextSandbox[sb.Kind]
		m.confirm.skipKeys, m.confirm.skipLabel = []string{"B", "b"}, "B skip to "+SandboxLabel(after.Kind)
		m.confirm.skip = func() { m.setSandbox(after) }
	}
}

const neverFullAccessWarning = "Never ask with Full access runs every action the model chooses outside the cage and without asking you: it can delete anything you can and reach the network. Use this pair only in a throw-away machine. Continue?"

func (m *Model) setApproval(a policy.ApprovalPolicy) {
	apply := func() error {
		s, err := m.svc.SetApprovalPolicy(m.ctx, m.sess.ID, a)
		if err != nil {
			return fmt.Errorf("approval: %w", err)
		}
		m.sess = s
		m.setNotice(false, "Approval is %s now.", ApprovalLabel(a))
		return nil
	}
	if a == policy.Never && m.sess.Sandbox.Kind == policy.DangerFullAccess {
		m.confirm = &confirmation{title: "Never ask with Full access?", text: neverFullAccessWarning, apply: apply,
			yes: "switch to Never ask", keep: "keep " + ApprovalLabel(m.sess.Approval)}
		return
	}
	if err := apply(); err != nil {
		m.setNotice(true, "%v", err)
	}
}

func (m *Model) setSandbox(sb runtime.Sandbox) {
	apply := func() error {
		s, err := m.svc.SetSandboxPolicy(m.ctx, m.sess.ID, sb)
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		m.sess = s
		_, words := AxesText(s.Approval, s.Sandbox)
		m.setNotice(false, "%s now.", words)
		return nil
	}
	if sb.Kind == policy.DangerFullAccess && m.sess.Sandbox.Kind != policy.DangerFullAccess {
		text := FullAccessWarning
		if m.sess.Approval == policy.Never {
			text = neverFullAccessWarning
		}
		_, keep := AxesText(m.sess.Approval, m.sess.Sandbox)
		m.confirm = &confirmation{title: "Switch to Full access?", text: text, apply: apply,
			yes: "switch to Full access", keep: "keep " + keep[len("Sandbox: "):]}
		return
	}
	if err := apply(); err != nil {
		m.setNotice(true, "%v", err)
	}
}

// confirmLines are the question and its keys: y does it, a cycle key
// steps past it, and anything that says no — Enter too — keeps things.
func (m *Model) confirmLines(w int) []string {
	c := m.confirm
	out := wrapSpans([]span{{text: c.text, style: m.th.warn}}, w, "", "", m.th.plain)
	keys := "y " + c.yes
	if c.skip != nil {
		keys += " · " + c.skipLabel
	}
	keys += " · n, Enter or Esc " + c.keep
	return append(append(out, ""), wrapSpans([]span{{text: keys, style: m.th.bold}}, w, "", "", m.th.plain)...)
}
