package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
)

// BenchmarkPushToModal is the terminal's own share of an ask's latency:
// from the approval push arriving to the frame that shows the modal, on a
// real session (its transcript behind it). ns/op is the figure.
func BenchmarkPushToModal(b *testing.B) {
	r := newRig(b)
	a := runtime.Approval{SessionID: r.m.Session().ID, CallID: "c1", Tool: "shell.exec",
		Args: json.RawMessage(`{"command":"rm -rf build"}`), Risk: policy.RiskHigh, Reasons: []policy.Reason{"destructive-effect"},
		Signature: "shell=rm -rf build", Live: true}
	for i := 0; b.Loop(); i++ {
		a.RequestID = "r" + itoa(i)
		r.m.Update(PushMsg(runtime.Push{Type: runtime.PushApproval, Approval: &a}))
		if !strings.Contains(r.m.Render(), "Permission request") {
			b.Fatal("no modal")
		}
		r.m.Update(PushMsg(runtime.Push{Type: runtime.PushApprovalResolved, RequestID: a.RequestID}))
	}
}
