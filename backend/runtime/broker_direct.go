package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// askDirect is an ask the runtime itself raises (present_plan): it records
// the request and its answer, and returns the human's answer.
func (b *broker) askDirect(ctx context.Context, sessionID, callID, tool, signature string, args json.RawMessage) (tools.Approval, error) {
	id := b.s.newID()
	req := store.PermissionRequested{RequestID: id, CallID: callID, Tool: tool, Args: args, Risk: policy.RiskLow,
		Reasons: []policy.Reason{}, Signature: signature}
	a := &ask{ch: make(chan tools.Approval, 1), direct: true, turnKey: sessionID, view: Approval{RequestID: id,
		SessionID: sessionID, CallID: callID, Tool: tool, Args: args, Risk: policy.RiskLow, Reasons: []policy.Reason{},
		Signature: signature, Effects: []policy.Effect{}, Trace: []policy.Step{}, CreatedAt: b.s.cfg.Now().UnixMilli(), Live: true}}
	b.mu.Lock()
	b.live[id] = a
	b.mu.Unlock()
	if _, err := b.s.st.Append(context.WithoutCancel(ctx), sessionID, store.AnyVersion, req); err != nil {
		b.mu.Lock()
		delete(b.live, id)
		b.mu.Unlock()
		return tools.Approval{}, err
	}
	var ans tools.Approval
	var err error
	if b.s.cfg.Headless {
		err = errors.New("no human attached")
		if b.s.cfg.ApprovalTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, b.s.cfg.ApprovalTimeout)
			ans, err = b.wait(ctx, a)
			cancel()
		}
	} else {
		if b.s.cfg.ApprovalTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, b.s.cfg.ApprovalTimeout)
			defer cancel()
		}
		ans, err = b.wait(ctx, a)
	}
	var ev store.Event
	switch {
	case err == nil && ans.Decided != nil && ans.Decided.Verdict == policy.VerdictDeny:
		d := ans.Decided
		ev = store.PermissionDenied{RequestID: id, CallID: callID, Tool: tool, Signature: signature,
			Reason: d.Reason, Detail: d.Detail, Remedy: d.Remedy, By: store.DeniedByUser, Trace: d.Trace}
		ans = tools.Approval{Note: d.Detail}
	case err != nil:
		ev = store.PermissionDenied{RequestID: id, CallID: callID, Tool: tool, Signature: signature,
			Reason: policy.ReasonNoApprover, Detail: "no answer: " + err.Error(), By: store.DeniedByNoApprover}
		ans = tools.Approval{Note: "no human answered"}
	case ans.Approved:
		src := "human:once"
		if ans.Always {
			src = "human:always"
		}
		ev = store.PermissionGranted{RequestID: id, CallID: callID, Tool: tool, Signature: signature, Source: src}
	default:
		detail := "a human denied the call"
		if ans.Note != "" {
			detail += ": " + ans.Note
		}
		ev = store.PermissionDenied{RequestID: id, CallID: callID, Tool: tool, Signature: signature,
			Reason: policy.ReasonUserDenied, Detail: detail, By: store.DeniedByUser}
	}
	if _, aerr := b.s.st.Append(context.WithoutCancel(ctx), sessionID, store.AnyVersion, ev); aerr != nil {
		return tools.Approval{}, aerr
	}
	b.s.hub.publish(Push{Type: PushApprovalResolved, RequestID: id, SessionID: sessionID})
	b.s.touch(sessionID)
	return ans, nil
}
