package script

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/runtime/model"
)

func TestLoad(t *testing.T) {
	cases := []struct {
		file    string
		wantErr string
	}{
		{"good.json", ""},
		{"bad_unknown_field.json", `unknown field "extra"`},
		{"bad_version.json", "only version 1"},
		{"bad_no_turns.json", "no turns"},
		{"bad_empty_turn.json", "turn 1: needs text or tool_calls"},
		{"bad_no_name.json", "missing name"},
		{"bad_args_array.json", "args must be a JSON object"},
		{"bad_dup_id.json", `id "x" used twice`},
		{"bad_trailing.json", "content after the top-level object"},
		{"bad_truncated.json", "invalid script JSON"},
		{"bad_delay.json", "delta_delay_ms -5"},
		{"does_not_exist.json", "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			s, err := Load(filepath.Join("testdata", tc.file))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s.Turns[0].ToolCalls[1].ID != "script_1_2" {
					t.Errorf("default id %q", s.Turns[0].ToolCalls[1].ID)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadRefusesHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, make([]byte, MaxFileSize+10), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("error %v", err)
	}
}

func open(t *testing.T, file string) *Provider {
	t.Helper()
	p, err := Open(filepath.Join("testdata", file), Options{NoDelay: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func collect(t *testing.T, p *Provider, msgs []model.Message) (model.Response, []model.Event, error) {
	t.Helper()
	st, err := p.Stream(context.Background(), model.Request{Messages: msgs})
	if err != nil {
		return model.Response{}, nil, err
	}
	var evs []model.Event
	resp, err := model.Collect(st, func(ev model.Event) { evs = append(evs, ev) })
	return resp, evs, err
}

func TestReplay(t *testing.T) {
	p := open(t, "good.json")
	msgs := []model.Message{model.UserMessage("read the readme")}
	resp, evs, err := collect(t, p, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.Text(); got != "Reading the readme now." {
		t.Errorf("text %q", got)
	}
	deltas := 0
	argFrags := 0
	for _, ev := range evs {
		switch ev.Type {
		case model.EventTextDelta:
			deltas++
		case model.EventToolCallDelta:
			argFrags++
		}
	}
	if deltas != 4 {
		t.Errorf("%d text deltas, want one per word (4)", deltas)
	}
	if argFrags < 4 {
		t.Errorf("%d argument fragments, want the args streamed in pieces", argFrags)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "c1" || calls[0].Name != "fs.read" || string(calls[0].Args) != `{"path":"README.md"}` {
		t.Fatalf("calls %+v", calls)
	}
	if calls[1].Name != "mcp-tool:files/list" || !json.Valid(calls[1].Args) || !strings.Contains(string(calls[1].Args), "ünïcode") {
		t.Errorf("second call %+v", calls[1])
	}
	if resp.StopReason != model.StopToolUse || resp.Usage != (model.Usage{InputTokens: 100, OutputTokens: 20}) {
		t.Errorf("stop %s usage %+v", resp.StopReason, resp.Usage)
	}

	msgs = append(msgs, resp.Message, model.ToolResultsMessage(
		model.ToolResult{CallID: "c1", Content: []model.Part{model.TextPart("# Warden\n")}},
		model.ToolResult{CallID: "script_1_2", Content: []model.Part{model.TextPart("[]")}},
	))
	resp, _, err = collect(t, p, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "Done." || resp.StopReason != model.StopEndTurn || resp.Usage.InputTokens == 0 {
		t.Errorf("turn 2: %+v", resp)
	}

	msgs = append(msgs, resp.Message, model.UserMessage("more?"))
	resp, _, err = collect(t, p, msgs)
	if err != nil || resp.Message.Text() != "No more turns." {
		t.Errorf("after the end: %+v, %v", resp, err)
	}
}

func TestResultChecks(t *testing.T) {
	first := model.AssistantMessage("Reading the readme now.",
		model.ToolCall{ID: "c1", Name: "fs.read", Args: json.RawMessage(`{"path":"README.md"}`)},
		model.ToolCall{ID: "script_1_2", Name: "mcp-tool:files/list", Args: json.RawMessage(`{}`)})
	ok := model.ToolResult{CallID: "script_1_2", Content: []model.Part{model.TextPart("[]")}}
	cases := []struct {
		name    string
		results []model.ToolResult
		wantErr string
	}{
		{"all good", []model.ToolResult{{CallID: "c1", Content: []model.Part{model.TextPart("Warden")}}, ok}, ""},
		{"missing result", []model.ToolResult{ok}, "no tool result came back for call c1"},
		{"unexpected error", []model.ToolResult{{CallID: "c1", IsError: true, Content: []model.Part{model.TextPart("Warden: denied")}}, ok}, "is_error=true"},
		{"text not found", []model.ToolResult{{CallID: "c1", Content: []model.Part{model.TextPart("nothing")}}, ok}, `does not contain "Warden"`},
	}
	p := open(t, "good.json")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs := []model.Message{model.UserMessage("go"), first, model.ToolResultsMessage(tc.results...)}
			_, _, err := collect(t, p, msgs)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, model.ErrScriptMismatch) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want script mismatch containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestExhaustedWithoutOnEnd(t *testing.T) {
	s, err := Parse([]byte(`{"version":1,"turns":[{"text":"only"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := New(s, Options{NoDelay: true})
	msgs := []model.Message{model.UserMessage("a"), model.AssistantMessage("only"), model.UserMessage("b")}
	_, _, err = collect(t, p, msgs)
	if !errors.Is(err, model.ErrScriptMismatch) || !strings.Contains(err.Error(), "all were used") {
		t.Fatalf("error %v", err)
	}
}

func TestCancelMidStream(t *testing.T) {
	s, err := Parse([]byte(`{"version":1,"delta_delay_ms":200,"turns":[{"text":"one two three four five"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := New(s, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := p.Stream(ctx, model.Request{Messages: []model.Message{model.UserMessage("go")}})
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := st.Recv(); err != nil || ev.Text != "one " {
		t.Fatalf("first event %+v %v", ev, err)
	}
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := st.Recv(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Recv after cancel = %v", err)
	}
}

func TestChunking(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"words", "a bb  c", []string{"a ", "bb  ", "c"}},
		{"newlines", "x\n\ny", []string{"x\n\n", "y"}},
		{"empty", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := chunkWords(tc.in)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("chunkWords(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	s := "ééééééééééé"
	for _, frag := range chunkBytes(s, 5) {
		if !utf8.ValidString(frag) {
			t.Errorf("fragment %q cuts a rune", frag)
		}
	}
	if strings.Join(chunkBytes(s, 5), "") != s {
		t.Errorf("chunkBytes lost bytes")
	}
}
