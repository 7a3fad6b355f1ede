package script

import (
	"context"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/runtime/model"
)

// The demo walks a read, a workspace write, a destructive command and a
// network request, labelled as a demo first and last, and survives every
// call being denied (a new user may deny them all).
func TestDemoWalkthrough(t *testing.T) {
	p, err := NewDemo(Options{NoDelay: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Model() != DemoLabel || p.Name() != "script" {
		t.Errorf("name %s model %s", p.Name(), p.Model())
	}
	type step struct{ tool, argHas string }
	want := []step{
		{"fs.list", `"path":"."`},
		{"fs.write", `"path":"warden-demo.txt"`},
		{"shell.exec", `"command":"rm -rf build"`},
		{"shell.exec", `"command":"curl https://example.com"`},
	}
	msgs := []model.Message{model.UserMessage("hello")}
	for i, w := range want {
		st, err := p.Stream(context.Background(), model.Request{Messages: msgs})
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		deltas := 0
		resp, err := model.Collect(st, func(ev model.Event) {
			if ev.Type == model.EventTextDelta {
				deltas++
			}
		})
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if i == 0 && !strings.HasPrefix(resp.Message.Text(), "[DEMO]") {
			t.Errorf("first message is not labelled a demo: %q", resp.Message.Text())
		}
		if deltas < 10 {
			t.Errorf("turn %d streamed in %d deltas", i, deltas)
		}
		calls := resp.Message.ToolCalls
		if len(calls) != 1 || calls[0].Name != w.tool || !strings.Contains(string(calls[0].Args), w.argHas) {
			t.Fatalf("turn %d calls %+v, want %s with %s", i, calls, w.tool, w.argHas)
		}
		msgs = append(msgs, resp.Message, model.ToolResultsMessage(model.ToolResult{
			CallID: calls[0].ID, IsError: true, Content: []model.Part{model.TextPart("denied by the user")},
		}))
	}
	st, err := p.Stream(context.Background(), model.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := model.Collect(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 0 || resp.StopReason != model.StopEndTurn || !strings.HasPrefix(resp.Message.Text(), "[DEMO]") {
		t.Errorf("closing turn %+v", resp)
	}
	msgs = append(msgs, resp.Message, model.UserMessage("and now?"))
	st, err = p.Stream(context.Background(), model.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	resp, err = model.Collect(st, nil)
	if err != nil || !strings.Contains(resp.Message.Text(), "demo script has ended") {
		t.Errorf("after the end: %q %v", resp.Message.Text(), err)
	}
}

func TestDemoJSONIsACopy(t *testing.T) {
	a := DemoJSON()
	a[0] = 'X'
	if DemoJSON()[0] == 'X' {
		t.Error("DemoJSON exposes the embedded bytes")
	}
}
