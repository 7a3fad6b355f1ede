package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/internal/wiretest"
)

func testRequest() model.Request {
	return model.Request{
		Messages: []model.Message{
			model.SystemMessage("You are Warden."),
			model.UserMessage("list the files"),
			model.AssistantMessage("Sure.", model.ToolCall{ID: "toolu_00", Name: "fs.list", Args: json.RawMessage(`{"path":"."}`)}),
			model.ToolResultsMessage(model.ToolResult{CallID: "toolu_00", Content: []model.Part{model.TextPart("README.md\n")}}),
			model.UserMessage("now run ls"),
		},
		Tools: []model.ToolSpec{
			{Name: "shell.exec", Description: "Run a command", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)},
			{Name: "fs.list", Description: "List a directory", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "mcp-tool:files/read_file", Description: "Read via MCP", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		},
	}
}

func newProvider(t *testing.T, srv *wiretest.Server) *Provider {
	t.Helper()
	p, err := New(Config{Model: "claude-sonnet-4-5", APIKey: "sk-ant-test", BaseURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStream(t *testing.T) {
	cases := []struct {
		name      string
		replies   []wiretest.Reply
		wantText  string
		wantCalls []model.ToolCall
		wantStop  model.StopReason
		wantUsage model.Usage
		wantErr   error  // kind, checked with errors.Is
		errHas    string // substring of the message
		wantReqs  int
	}{
		{
			name:      "text",
			replies:   []wiretest.Reply{{File: "testdata/text.sse"}},
			wantText:  "Hello, world.",
			wantStop:  model.StopEndTurn,
			wantUsage: model.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 10},
			wantReqs:  1,
		},
		{
			name:     "tool calls with arguments split across chunks",
			replies:  []wiretest.Reply{{File: "testdata/tool_call.sse"}},
			wantText: "Let me look.",
			wantCalls: []model.ToolCall{
				{ID: "toolu_01A", Name: "shell.exec", Args: json.RawMessage(`{"command": "ls -la"}`)},
				{ID: "toolu_01B", Name: "mcp-tool:files/read_file", Args: json.RawMessage(`{"path": "README.md"}`)},
				{ID: "toolu_01C", Name: "fs.list", Args: json.RawMessage(`{}`)},
			},
			wantStop:  model.StopToolUse,
			wantUsage: model.Usage{InputTokens: 472, OutputTokens: 89},
			wantReqs:  1,
		},
		{
			name:      "input given whole in content_block_start",
			replies:   []wiretest.Reply{{File: "testdata/whole_input.sse"}},
			wantCalls: []model.ToolCall{{ID: "toolu_01W", Name: "fs.list", Args: json.RawMessage(`{"path":"src"}`)}},
			wantStop:  model.StopToolUse,
			wantUsage: model.Usage{InputTokens: 5, OutputTokens: 7},
			wantReqs:  1,
		},
		{
			name: "429 then success honours Retry-After",
			replies: []wiretest.Reply{
				{Status: 429, File: "testdata/429.json", Header: map[string]string{"Retry-After": "0"}},
				{File: "testdata/text.sse"},
			},
			wantText:  "Hello, world.",
			wantStop:  model.StopEndTurn,
			wantUsage: model.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 10},
			wantReqs:  2,
		},
		{
			name: "529 overloaded then success",
			replies: []wiretest.Reply{
				{Status: 529, File: "testdata/529.json", Header: map[string]string{"Retry-After": "0"}},
				{File: "testdata/text.sse"},
			},
			wantText:  "Hello, world.",
			wantStop:  model.StopEndTurn,
			wantUsage: model.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 10},
			wantReqs:  2,
		},
		{
			name: "429 until retries run out",
			replies: []wiretest.Reply{
				{Status: 429, File: "testdata/429.json", Header: map[string]string{"Retry-After": "0"}},
				{Status: 429, File: "testdata/429.json", Header: map[string]string{"Retry-After": "0"}},
				{Status: 429, File: "testdata/429.json", Header: map[string]string{"Retry-After": "0"}},
				{Status: 429, File: "testdata/429.json", Header: map[string]string{"Retry-After": "0"}},
			},
			wantErr:  model.ErrRateLimited,
			errHas:   "per-minute rate limit",
			wantReqs: 4,
		},
		{
			name:     "401 bad key",
			replies:  []wiretest.Reply{{Status: 401, File: "testdata/401.json"}},
			wantErr:  model.ErrAuth,
			errHas:   "ANTHROPIC_API_KEY",
			wantReqs: 1,
		},
		{
			name:     "404 unknown model",
			replies:  []wiretest.Reply{{Status: 404, File: "testdata/404.json"}},
			wantErr:  model.ErrModelNotFound,
			errHas:   `model "claude-sonnet-4-5" not found`,
			wantReqs: 1,
		},
		{
			name:     "malformed chunk",
			replies:  []wiretest.Reply{{File: "testdata/malformed.sse"}},
			wantErr:  model.ErrProtocol,
			errHas:   "malformed stream event",
			wantReqs: 1,
		},
		{
			name:     "tool arguments that are not JSON",
			replies:  []wiretest.Reply{{File: "testdata/bad_args.sse"}},
			wantErr:  model.ErrProtocol,
			errHas:   "arguments are not valid JSON",
			wantReqs: 1,
		},
		{
			name:     "stream cut before message_stop",
			replies:  []wiretest.Reply{{File: "testdata/truncated.sse"}},
			wantErr:  model.ErrProtocol,
			errHas:   "before message_stop",
			wantReqs: 1,
		},
		{
			name:     "error event mid-stream",
			replies:  []wiretest.Reply{{File: "testdata/overloaded_event.sse"}},
			wantErr:  model.ErrServer,
			errHas:   "Overloaded",
			wantReqs: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := wiretest.New(t, tc.replies...)
			p := newProvider(t, srv)
			var resp model.Response
			st, err := p.Stream(context.Background(), testRequest())
			if err == nil {
				resp, err = model.Collect(st, nil)
			}
			if got := len(srv.Requests()); got != tc.wantReqs {
				t.Errorf("server saw %d requests, want %d", got, tc.wantReqs)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want kind %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %q does not mention %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Message.Text(); got != tc.wantText {
				t.Errorf("text %q, want %q", got, tc.wantText)
			}
			if len(resp.Message.ToolCalls) != len(tc.wantCalls) {
				t.Fatalf("calls %+v, want %+v", resp.Message.ToolCalls, tc.wantCalls)
			}
			for i, c := range resp.Message.ToolCalls {
				w := tc.wantCalls[i]
				if c.ID != w.ID || c.Name != w.Name || string(c.Args) != string(w.Args) {
					t.Errorf("call %d = %s %s %s, want %s %s %s", i, c.ID, c.Name, c.Args, w.ID, w.Name, w.Args)
				}
			}
			if resp.StopReason != tc.wantStop {
				t.Errorf("stop %q, want %q", resp.StopReason, tc.wantStop)
			}
			if resp.Usage != tc.wantUsage {
				t.Errorf("usage %+v, want %+v", resp.Usage, tc.wantUsage)
			}
		})
	}
}

// The request on the wire carries wire-safe tool names, the system prompt,
// tool results as user-turn tool_result blocks, and the key header.
func TestRequestOnTheWire(t *testing.T) {
	srv := wiretest.New(t, wiretest.Reply{File: "testdata/text.sse"})
	p := newProvider(t, srv)
	st, err := p.Stream(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Collect(st, nil); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/messages" {
		t.Errorf("path %s", req.Path)
	}
	// This SDK version sends the key as a bearer token.
	if got := req.Header.Get("Authorization"); got != "Bearer sk-ant-test" {
		t.Errorf("authorization %q", got)
	}
	var body struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Stream    bool   `json:"stream"`
		System    []struct {
			Text string `json:"text"`
		} `json:"system"`
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("%v: %s", err, req.Body)
	}
	if body.Model != "claude-sonnet-4-5" || !body.Stream || body.MaxTokens != defaultMaxTokens {
		t.Errorf("model %q stream %v max_tokens %d", body.Model, body.Stream, body.MaxTokens)
	}
	if len(body.System) != 1 || body.System[0].Text != "You are Warden." {
		t.Errorf("system %+v", body.System)
	}
	var toolNames []string
	for _, tl := range body.Tools {
		toolNames = append(toolNames, tl.Name)
	}
	if got := strings.Join(toolNames, ","); got != "shell_exec,fs_list,mcp__files__read_file" {
		t.Errorf("tool names %s", got)
	}
	if ap := body.Tools[0].InputSchema["additionalProperties"]; ap != false {
		t.Errorf("schema extras lost: %v", body.Tools[0].InputSchema)
	}
	roles := []string{}
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
	}
	// user, assistant(text+tool_use), user(tool_result + "now run ls") merged.
	if got := strings.Join(roles, ","); got != "user,assistant,user" {
		t.Fatalf("roles %s", got)
	}
	tu := string(body.Messages[1].Content[1])
	if !strings.Contains(tu, `"type":"tool_use"`) || !strings.Contains(tu, `"name":"fs_list"`) || !strings.Contains(tu, `"path":"."`) {
		t.Errorf("tool_use block %s", tu)
	}
	tr := string(body.Messages[2].Content[0])
	if !strings.Contains(tr, `"type":"tool_result"`) || !strings.Contains(tr, `"tool_use_id":"toolu_00"`) {
		t.Errorf("tool_result block %s", tr)
	}
}

func TestStreamEventsInOrder(t *testing.T) {
	srv := wiretest.New(t, wiretest.Reply{File: "testdata/tool_call.sse"})
	p := newProvider(t, srv)
	st, err := p.Stream(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var types []string
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(ev.Type))
	}
	want := "text_delta,tool_call_start,tool_call_delta,tool_call_delta,tool_call_delta,tool_call_done," +
		"tool_call_start,tool_call_delta,tool_call_delta,tool_call_done,tool_call_start,tool_call_done,usage,stop"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	if _, err := st.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("Recv after end = %v, want EOF", err)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := wiretest.New(t, wiretest.Reply{File: "testdata/text.sse", HoldAfter: 4})
	p := newProvider(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := p.Stream(ctx, testRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev, err := st.Recv()
	if err != nil || ev.Type != model.EventTextDelta || ev.Text != "Hello" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.Recv()
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Recv after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Recv did not return after cancel")
	}
}

func TestNewNeedsKeyAndModel(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	cases := []struct {
		name string
		cfg  Config
		env  string
		want error
	}{
		{name: "no key anywhere", cfg: Config{Model: "claude-sonnet-4-5"}, want: model.ErrAuth},
		{name: "key from env", cfg: Config{Model: "claude-sonnet-4-5"}, env: "sk-ant-env"},
		{name: "key from config", cfg: Config{Model: "claude-sonnet-4-5", APIKey: "sk-ant-cfg"}},
		{name: "no model", cfg: Config{APIKey: "k"}, want: model.ErrBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", tc.env)
			_, err := New(tc.cfg)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("New = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestKeyFromEnvIsSent(t *testing.T) {
	srv := wiretest.New(t, wiretest.Reply{File: "testdata/text.sse"})
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	p, err := New(Config{Model: "claude-sonnet-4-5", BaseURL: srv.URL, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Stream(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Collect(st, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-ant-from-env" {
		t.Errorf("authorization %q", got)
	}
}

// The wait before a retry is the server's Retry-After, not the SDK's
// shorter first backoff (0.5 s).
func TestRetryAfterIsHonoured(t *testing.T) {
	srv := wiretest.New(t,
		wiretest.Reply{Status: 429, File: "testdata/429.json", Header: map[string]string{"Retry-After": "1"}},
		wiretest.Reply{File: "testdata/text.sse"})
	p := newProvider(t, srv)
	start := time.Now()
	st, err := p.Stream(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Collect(st, nil); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Errorf("retried after %v, want about 1s", waited)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
}

// Cancelling while the client waits to retry ends the call at once.
func TestCancelDuringRetryWait(t *testing.T) {
	srv := wiretest.New(t,
		wiretest.Reply{Status: 429, File: "testdata/429.json", Header: map[string]string{"Retry-After": "30"}})
	p := newProvider(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Stream(ctx, testRequest())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the context's", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("Stream returned after %v", waited)
	}
}
