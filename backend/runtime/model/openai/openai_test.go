package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
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
			model.AssistantMessage("", model.ToolCall{ID: "call_00", Name: "fs.list", Args: json.RawMessage(`{"path":"."}`)}),
			model.ToolResultsMessage(model.ToolResult{CallID: "call_00", IsError: true, Content: []model.Part{
				model.TextPart("permission denied"), model.ImagePart("image/png", []byte{0x89, 'P', 'N', 'G'}),
			}}),
			model.UserMessage("now run ls"),
		},
		Tools: []model.ToolSpec{
			{Name: "shell.exec", Description: "Run a command", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
			{Name: "fs.list", Description: "List a directory", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "fs.read", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "mcp-tool:files/read_file", Description: "Read via MCP", Schema: json.RawMessage(`{"type":"object"}`)},
		},
	}
}

func newProvider(t *testing.T, srv *wiretest.Server) *Provider {
	t.Helper()
	p, err := New(Config{Model: "gpt-4.1", APIKey: "sk-test", BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func retryAfter0(status int, file string) wiretest.Reply {
	return wiretest.Reply{Status: status, File: file, Header: map[string]string{"Retry-After": "0"}}
}

func TestStream(t *testing.T) {
	textUsage := model.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 10}
	cases := []struct {
		name      string
		replies   []wiretest.Reply
		wantText  string
		wantCalls []model.ToolCall
		wantStop  model.StopReason
		wantUsage model.Usage
		wantErr   error
		errHas    string
		wantReqs  int
	}{
		{
			name:      "text",
			replies:   []wiretest.Reply{{File: "testdata/text.sse"}},
			wantText:  "Hello, world.",
			wantStop:  model.StopEndTurn,
			wantUsage: textUsage,
			wantReqs:  1,
		},
		{
			name:     "tool calls with arguments split across chunks",
			replies:  []wiretest.Reply{{File: "testdata/tool_call.sse"}},
			wantText: "Let me look.",
			wantCalls: []model.ToolCall{
				{ID: "call_A1", Name: "shell.exec", Args: json.RawMessage(`{"command": "ls -la"}`)},
				{ID: "call_B2", Name: "mcp-tool:files/read_file", Args: json.RawMessage(`{"path": "README.md"}`)},
				{ID: "call_C3", Name: "fs.list", Args: json.RawMessage(`{}`)},
			},
			wantStop:  model.StopToolUse,
			wantUsage: model.Usage{InputTokens: 472, OutputTokens: 89},
			wantReqs:  1,
		},
		{
			name:    "ollama: whole calls in one chunk",
			replies: []wiretest.Reply{{File: "testdata/ollama_tool_call.sse"}},
			wantCalls: []model.ToolCall{
				{ID: "call_o1", Name: "fs.read", Args: json.RawMessage(`{"path":"README.md"}`)},
				{ID: "call_o2", Name: "shell.exec", Args: json.RawMessage(`{"command":"rm -rf build"}`)},
			},
			wantStop:  model.StopToolUse,
			wantUsage: model.Usage{InputTokens: 120, OutputTokens: 31},
			wantReqs:  1,
		},
		{
			name:      "429 then success honours Retry-After",
			replies:   []wiretest.Reply{retryAfter0(429, "testdata/429.json"), {File: "testdata/text.sse"}},
			wantText:  "Hello, world.",
			wantStop:  model.StopEndTurn,
			wantUsage: textUsage,
			wantReqs:  2,
		},
		{
			name:      "503 then success",
			replies:   []wiretest.Reply{retryAfter0(503, "testdata/503.json"), {File: "testdata/text.sse"}},
			wantText:  "Hello, world.",
			wantStop:  model.StopEndTurn,
			wantUsage: textUsage,
			wantReqs:  2,
		},
		{
			name: "503 until retries run out",
			replies: []wiretest.Reply{
				retryAfter0(503, "testdata/503.json"), retryAfter0(503, "testdata/503.json"),
				retryAfter0(503, "testdata/503.json"), retryAfter0(503, "testdata/503.json"),
			},
			wantErr:  model.ErrServer,
			errHas:   "overloaded or not ready",
			wantReqs: 4,
		},
		{
			name:     "401 bad key",
			replies:  []wiretest.Reply{{Status: 401, File: "testdata/401.json"}},
			wantErr:  model.ErrAuth,
			errHas:   "OPENAI_API_KEY",
			wantReqs: 1,
		},
		{
			name:     "404 unknown model",
			replies:  []wiretest.Reply{{Status: 404, File: "testdata/404.json"}},
			wantErr:  model.ErrModelNotFound,
			errHas:   `model "gpt-4.1" not found`,
			wantReqs: 1,
		},
		{
			name:     "malformed chunk",
			replies:  []wiretest.Reply{{File: "testdata/malformed.sse"}},
			wantErr:  model.ErrProtocol,
			errHas:   "malformed stream chunk",
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
			name:     "stream cut before finish_reason",
			replies:  []wiretest.Reply{{File: "testdata/truncated.sse"}},
			wantErr:  model.ErrProtocol,
			errHas:   "without a finish_reason",
			wantReqs: 1,
		},
		{
			name:     "error object mid-stream",
			replies:  []wiretest.Reply{{File: "testdata/error_chunk.sse"}},
			wantErr:  model.ErrServer,
			errHas:   "server had an error",
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
	if req.Path != "/v1/chat/completions" {
		t.Errorf("path %s", req.Path)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("authorization %q", got)
	}
	var body struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Messages []map[string]any `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("%v: %s", err, req.Body)
	}
	if body.Model != "gpt-4.1" || !body.Stream || !body.StreamOptions.IncludeUsage {
		t.Errorf("model %q stream %v include_usage %v", body.Model, body.Stream, body.StreamOptions.IncludeUsage)
	}
	var toolNames []string
	for _, tl := range body.Tools {
		toolNames = append(toolNames, tl.Function.Name)
	}
	if got := strings.Join(toolNames, ","); got != "shell_exec,fs_list,fs_read,mcp__files__read_file" {
		t.Errorf("tool names %s", got)
	}
	var roles []string
	for _, m := range body.Messages {
		roles = append(roles, m["role"].(string))
	}
	// The tool result's image follows the tool message as a user message.
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,user,user" {
		t.Fatalf("roles %s", got)
	}
	asst, _ := json.Marshal(body.Messages[2])
	if !strings.Contains(string(asst), `"name":"fs_list"`) || !strings.Contains(string(asst), `"arguments":"{\"path\":\".\"}"`) {
		t.Errorf("assistant %s", asst)
	}
	tool := body.Messages[3]
	if tool["tool_call_id"] != "call_00" || tool["content"] != "Error: permission denied" {
		t.Errorf("tool message %v", tool)
	}
	img, _ := json.Marshal(body.Messages[4])
	if !strings.Contains(string(img), "data:image/png;base64,") {
		t.Errorf("image message %s", img)
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
	want := "text_delta,tool_call_start,tool_call_delta,tool_call_delta,tool_call_delta," +
		"tool_call_start,tool_call_delta,tool_call_delta,tool_call_start," +
		"tool_call_done,tool_call_done,tool_call_done,usage,stop"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := wiretest.New(t, wiretest.Reply{File: "testdata/text.sse", HoldAfter: 2})
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

func TestConfigFromEnv(t *testing.T) {
	cases := []struct {
		name     string
		cfg      Config
		envKey   string
		envBase  string
		wantErr  error
		wantBase string
	}{
		{name: "no key for OpenAI itself", cfg: Config{Model: "gpt-4.1"}, wantErr: model.ErrAuth},
		{name: "key from env", cfg: Config{Model: "gpt-4.1"}, envKey: "sk-env", wantBase: DefaultBaseURL},
		{name: "local server needs no key", cfg: Config{Model: "llama3.1:8b"}, envBase: "http://127.0.0.1:11434/v1", wantBase: "http://127.0.0.1:11434/v1"},
		{name: "config wins over env", cfg: Config{Model: "m", BaseURL: "http://127.0.0.1:8000/v1"}, envBase: "http://127.0.0.1:1/v1", wantBase: "http://127.0.0.1:8000/v1"},
		{name: "no model", cfg: Config{APIKey: "k"}, wantErr: model.ErrBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", tc.envKey)
			t.Setenv("OPENAI_BASE_URL", tc.envBase)
			p, err := New(tc.cfg)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("New = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.BaseURL() != tc.wantBase {
				t.Errorf("base %q, want %q", p.BaseURL(), tc.wantBase)
			}
		})
	}
}

// A keyless local server (Ollama style) gets no Authorization header.
func TestLocalServerWithoutKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := wiretest.New(t, wiretest.Reply{File: "testdata/ollama_tool_call.sse"})
	p, err := New(Config{Model: "llama3.1:8b", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Stream(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := model.Collect(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 2 {
		t.Fatalf("calls %+v", resp.Message.ToolCalls)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("authorization %q sent to a keyless server", got)
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

// Servers that reject stream_options can be asked without it.
func TestNoStreamUsage(t *testing.T) {
	srv := wiretest.New(t, wiretest.Reply{File: "testdata/text.sse"})
	p, err := New(Config{Model: "m", BaseURL: srv.URL + "/v1", NoStreamUsage: true})
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
	if body := string(srv.Requests()[0].Body); strings.Contains(body, "stream_options") {
		t.Errorf("stream_options sent: %s", body)
	}
}
