package modeltest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/openai"
	"github.com/warden-dev/warden/backend/runtime/model/script"
)

var tools = []model.ToolSpec{
	{Name: "fs.list", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "fs.read", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "fs.write", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)},
	{Name: "shell.exec", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
	{Name: "mcp-tool:files/list", Schema: json.RawMessage(`{"type":"object"}`)},
}

func scriptFile(t *testing.T, name string) *script.Script {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	s, err := script.Load(filepath.Join(filepath.Dir(self), "..", "script", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A whole scripted conversation runs through each real provider over its
// real wire protocol and yields exactly the script's turns.
func TestConversationOverTheWire(t *testing.T) {
	demo, err := script.Demo()
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string]*script.Script{"demo": demo, "good": scriptFile(t, "good.json")}
	type setup struct {
		name string
		new  func(*script.Script) (*Server, model.Provider, error)
	}
	setups := []setup{
		{"anthropic", func(sc *script.Script) (*Server, model.Provider, error) {
			srv := NewAnthropic(sc)
			p, err := anthropic.New(anthropic.Config{Model: "claude-test", APIKey: "k", BaseURL: srv.URL})
			return srv, p, err
		}},
		{"openai", func(sc *script.Script) (*Server, model.Provider, error) {
			srv := NewOpenAI(sc)
			p, err := openai.New(openai.Config{Model: "gpt-test", APIKey: "k", BaseURL: srv.URL + "/v1"})
			return srv, p, err
		}},
	}
	for _, su := range setups {
		for sname, sc := range scripts {
			t.Run(su.name+"/"+sname, func(t *testing.T) {
				srv, p, err := su.new(sc)
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				msgs := []model.Message{model.UserMessage("start")}
				for k, want := range sc.Turns {
					st, err := p.Stream(context.Background(), model.Request{Messages: msgs, Tools: tools})
					if err != nil {
						t.Fatalf("turn %d: %v", k, err)
					}
					deltas := 0
					resp, err := model.Collect(st, func(ev model.Event) {
						if ev.Type == model.EventTextDelta {
							deltas++
						}
					})
					if err != nil {
						t.Fatalf("turn %d: %v", k, err)
					}
					if resp.Message.Text() != want.Text {
						t.Errorf("turn %d text %q, want %q", k, resp.Message.Text(), want.Text)
					}
					if deltas != len(words(want.Text)) {
						t.Errorf("turn %d arrived in %d deltas", k, deltas)
					}
					if len(resp.Message.ToolCalls) != len(want.ToolCalls) {
						t.Fatalf("turn %d calls %+v", k, resp.Message.ToolCalls)
					}
					var results []model.ToolResult
					for i, c := range resp.Message.ToolCalls {
						w := want.ToolCalls[i]
						if c.ID != w.ID || c.Name != w.Name || string(c.Args) != string(w.Args) {
							t.Errorf("turn %d call %d = %s %s %s, want %s %s %s", k, i, c.ID, c.Name, c.Args, w.ID, w.Name, w.Args)
						}
						results = append(results, model.ToolResult{CallID: c.ID, Content: []model.Part{model.TextPart("ok")}})
					}
					msgs = append(msgs, resp.Message)
					if len(results) > 0 {
						msgs = append(msgs, model.ToolResultsMessage(results...))
					} else {
						msgs = append(msgs, model.UserMessage("next"))
					}
				}
				if n := len(srv.Bodies()); n != len(sc.Turns) {
					t.Errorf("server saw %d requests for %d turns", n, len(sc.Turns))
				}
			})
		}
	}
}
