package model

import (
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// sliceStream replays fixed events, then io.EOF or a final error.
type sliceStream struct {
	evs    []Event
	end    error
	closed bool
}

func (s *sliceStream) Recv() (Event, error) {
	if len(s.evs) == 0 {
		if s.end != nil {
			return Event{}, s.end
		}
		return Event{}, io.EOF
	}
	ev := s.evs[0]
	s.evs = s.evs[1:]
	return ev, nil
}

func (s *sliceStream) Close() error { s.closed = true; return nil }

func TestCollect(t *testing.T) {
	call := func(id, name, args string) *ToolCall {
		return &ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
	}
	cases := []struct {
		name      string
		evs       []Event
		end       error
		wantText  string
		wantCalls []string // id:args
		wantStop  StopReason
		wantErr   error
	}{
		{
			name:     "text only",
			evs:      []Event{{Type: EventTextDelta, Text: "Hel"}, {Type: EventTextDelta, Text: "lo"}, {Type: EventStop, StopReason: StopEndTurn}},
			wantText: "Hello", wantStop: StopEndTurn,
		},
		{
			name: "calls out of order come back by index",
			evs: []Event{
				{Type: EventToolCallStart, Index: 0, CallID: "a", Name: "fs.read"},
				{Type: EventToolCallStart, Index: 1, CallID: "b", Name: "fs.list"},
				{Type: EventToolCallDelta, Index: 0, ArgsDelta: `{"path":`},
				{Type: EventToolCallDone, Index: 1, Call: call("b", "fs.list", `{}`)},
				{Type: EventToolCallDelta, Index: 0, ArgsDelta: `"x"}`},
				{Type: EventToolCallDone, Index: 0, Call: &ToolCall{ID: "a", Name: "fs.read"}},
				{Type: EventStop, StopReason: StopToolUse},
			},
			wantCalls: []string{`a:{"path":"x"}`, `b:{}`}, wantStop: StopToolUse,
		},
		{
			name:     "no stop event",
			evs:      []Event{{Type: EventTextDelta, Text: "x"}},
			wantText: "x", wantStop: StopOther,
		},
		{
			name:    "delta before start",
			evs:     []Event{{Type: EventToolCallDelta, Index: 3, ArgsDelta: "{"}},
			wantErr: ErrProtocol,
		},
		{
			name:    "invalid args",
			evs:     []Event{{Type: EventToolCallDone, Index: 0, Call: call("a", "x", `{"a"`)}},
			wantErr: ErrProtocol,
		},
		{
			name:    "stream error passes through",
			evs:     []Event{{Type: EventTextDelta, Text: "x"}},
			end:     &Error{Provider: "p", Kind: ErrServer, Message: "boom"},
			wantErr: ErrServer,
		},
		{
			name:    "unknown event",
			evs:     []Event{{Type: "bogus"}},
			wantErr: ErrProtocol,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &sliceStream{evs: tc.evs, end: tc.end}
			seen := 0
			resp, err := Collect(s, func(Event) { seen++ })
			if !s.closed {
				t.Error("Collect did not close the stream")
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if seen != len(tc.evs) {
				t.Errorf("onEvent saw %d of %d", seen, len(tc.evs))
			}
			if resp.Message.Role != RoleAssistant || resp.Message.Text() != tc.wantText || resp.StopReason != tc.wantStop {
				t.Errorf("resp %+v", resp)
			}
			var got []string
			for _, c := range resp.Message.ToolCalls {
				got = append(got, c.ID+":"+string(c.Args))
			}
			if len(got) != len(tc.wantCalls) {
				t.Fatalf("calls %v, want %v", got, tc.wantCalls)
			}
			for i := range got {
				if got[i] != tc.wantCalls[i] {
					t.Errorf("call %d %s, want %s", i, got[i], tc.wantCalls[i])
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		req  Request
		ok   bool
	}{
		{"fine", Request{Messages: []Message{UserMessage("hi")}, Tools: []ToolSpec{{Name: "a", Schema: json.RawMessage(`{}`)}}}, true},
		{"no messages", Request{}, false},
		{"duplicate tool", Request{Messages: []Message{UserMessage("hi")}, Tools: []ToolSpec{{Name: "a"}, {Name: "a"}}}, false},
		{"bad schema", Request{Messages: []Message{UserMessage("hi")}, Tools: []ToolSpec{{Name: "a", Schema: json.RawMessage(`{`)}}}, false},
		{"bad role", Request{Messages: []Message{{Role: "robot"}}}, false},
		{"empty tool message", Request{Messages: []Message{{Role: RoleTool}}}, false},
		{"bad call args", Request{Messages: []Message{AssistantMessage("", ToolCall{ID: "x", Name: "a", Args: json.RawMessage(`[`)})}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.req.Validate()
			if tc.ok != (err == nil) {
				t.Fatalf("Validate = %v", err)
			}
			if err != nil && !errors.Is(err, ErrBadRequest) {
				t.Errorf("error %v is not ErrBadRequest", err)
			}
		})
	}
}

func TestHTTPErrorKinds(t *testing.T) {
	cases := []struct {
		status int
		want   error
	}{
		{401, ErrAuth}, {403, ErrAuth}, {404, ErrModelNotFound}, {429, ErrRateLimited},
		{500, ErrServer}, {529, ErrServer}, {400, ErrBadRequest}, {413, ErrBadRequest},
	}
	for _, tc := range cases {
		err := HTTPError("p", "m", "KEY", tc.status, "msg", errors.New("cause"))
		if !errors.Is(err, tc.want) {
			t.Errorf("%d: %v is not %v", tc.status, err, tc.want)
		}
	}
}
