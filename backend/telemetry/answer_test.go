package telemetry

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/store/storetest"
)

// TestAnswerRecords: every answerer's answer — a pass too — is a record of
// its own with who answered, what and how fast; its why (which may quote
// the command) only with log_arguments.
func TestAnswerRecords(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := store.Open(ctx, db, storetest.KeyFor(db))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.CreateSession(ctx, store.NewSession{Workspace: "/home/u/proj", Approval: policy.OnRequest,
		Sandbox: policy.SandboxPolicy{Kind: policy.WorkspaceWrite}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		ev       store.AnswererAnswered
		logArgs  bool
		want     map[string]string
		noReason bool
	}{
		{name: "a reviewer passes, arguments off",
			ev:       store.AnswererAnswered{RequestID: "r1", CallID: "c1", Tool: "shell.exec", Kind: "model", Name: "claude-haiku-4-5", Answer: "pass", Reason: "rm -rf build is not routine", LatencyMs: 412},
			want:     map[string]string{"warden.answerer.kind": "model", "warden.answerer.name": "claude-haiku-4-5", "warden.answerer.answer": "pass", AttrLayer: "answerer", AttrRecord: ClassAnswer},
			noReason: true},
		{name: "a hook denies, arguments on", logArgs: true,
			ev:   store.AnswererAnswered{RequestID: "r2", CallID: "c2", Tool: "shell.exec", Kind: "hook", Name: "corp-guard", Answer: "deny", Reason: "pushes go through CI", LatencyMs: 9},
			want: map[string]string{"warden.answerer.kind": "hook", "warden.answerer.answer": "deny", "warden.answerer.reason": "pushes go through CI"}},
		{name: "a command answerer allows",
			ev:       store.AnswererAnswered{RequestID: "r3", CallID: "c3", Tool: "fs.write", Kind: "command", Name: "corp-check", Answer: "allow", LatencyMs: 30},
			want:     map[string]string{"warden.answerer.kind": "command", "warden.answerer.name": "corp-check", "warden.answerer.answer": "allow"},
			noReason: true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !Exported(c.ev) {
				t.Fatal("answers are not exported")
			}
			it := store.OutboxItem{StoredEvent: store.StoredEvent{Seq: int64(10 + i), SessionID: sess.ID, Version: 1,
				Kind: store.KindOf(c.ev), Time: time.UnixMilli(1796015701000), Event: c.ev}}
			r, err := Build(ctx, st, it, BuildOptions{LogArguments: c.logArgs})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, kv := range r.Attrs {
				got[string(kv.Key)] = kv.Value.Emit()
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
			if got["warden.answerer.latency_ms"] == "" {
				t.Errorf("no latency: %v", got)
			}
			if _, ok := got["warden.answerer.reason"]; ok == c.noReason {
				t.Errorf("reason present = %v with log_arguments %v", ok, c.logArgs)
			}
			if r.EventName != "warden.answer" {
				t.Errorf("event name %q", r.EventName)
			}
		})
	}
}
