package tui

// Changing the two axes (approval, sandbox) from the keys and the
// composer, with a confirmation before a widening that needs one.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

// confirmation is a yes/no question before an axis change that needs one.
type confirmation struct {
	text  string
	apply func() error
}

func (m *Model) onConfirmKey(key string) (tea.Model, tea.Cmd) {
	c := m.confirm
	switch key {
	case "y", "Y", "enter":
		m.confirm = nil
		if err := c.apply(); err != nil {
			m.setNotice(true, "%v", err)
		}
	case "n", "N", "esc":
		m.confirm = nil
		m.setNotice(false, "Unchanged.")
	}
	return m, nil
}

// cycleApproval steps On request → Always ask → Never ask → On request.
func (m *Model) cycleApproval() {
	next := map[policy.ApprovalPolicy]policy.ApprovalPolicy{policy.OnRequest: policy.Always, policy.Always: policy.Never,
		policy.Never: policy.OnRequest}[m.sess.Approval]
	m.setApproval(next)
}

// cycleSandbox steps Read only → Workspace write → Full access → Read
// only; Full access only after a yes.
func (m *Model) cycleSandbox() {
	sb := m.sess.Sandbox
	sb.Kind = map[policy.SandboxKind]policy.SandboxKind{policy.ReadOnly: policy.WorkspaceWrite,
		policy.WorkspaceWrite: policy.DangerFullAccess, policy.DangerFullAccess: policy.ReadOnly}[sb.Kind]
	m.setSandbox(sb)
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
		m.confirm = &confirmation{text: neverFullAccessWarning, apply: apply}
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
		m.confirm = &confirmation{text: text, apply: apply}
		return
	}
	if err := apply(); err != nil {
		m.setNotice(true, "%v", err)
	}
}

func (m *Model) confirmLines(w int) []string {
	out := wrapSpans([]span{{text: m.confirm.text, style: m.th.warn}}, w, "", "", m.th.plain)
	return append(out, "", m.th.bold.Render("y yes · n or Esc no"))
}
