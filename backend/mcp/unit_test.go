package mcp

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var modelNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestModelName(t *testing.T) {
	cases := []struct {
		server, tool, want string
	}{
		{"everything", "echo", "mcp__everything__echo"},
		{"fs", "read_text_file", "mcp__fs__read_text_file"},
		{"everything", "get-sum", "mcp__everything__get-sum"},
	}
	for _, tc := range cases {
		if got := ModelName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ModelName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	// Names that could collide or do not fit get distinct hashed forms.
	hashed := [][2]string{
		{"a__b", "c"}, {"a", "b__c"}, {"srv.v2", "tool"}, {"srv_v2", "tool."},
		{"s", "tool/with/slashes"}, {"s", "ünïcode"}, {"s", strings.Repeat("x", 100)},
		{"s", strings.Repeat("x", 100) + "y"}, {"_lead", "t"}, {"s", "trail_"},
	}
	seen := map[string][2]string{}
	for _, h := range hashed {
		got := ModelName(h[0], h[1])
		if !modelNameRE.MatchString(got) {
			t.Errorf("ModelName(%q, %q) = %q: not a valid identifier", h[0], h[1], got)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("%v and %v share %q", prev, h, got)
		}
		seen[got] = h
		if got == "mcp__"+h[0]+"__"+h[1] {
			t.Errorf("ModelName(%q, %q) = %q is the ambiguous plain form", h[0], h[1], got)
		}
	}
}

func TestSplitToolName(t *testing.T) {
	cases := []struct {
		in, server, tool string
		ok               bool
	}{
		{"mcp-tool:fs/read_file", "fs", "read_file", true},
		{"mcp-tool:s/a/b", "s", "a/b", true},
		{"mcp-tool:/x", "", "", false},
		{"mcp-tool:s/", "", "", false},
		{"shell.exec", "", "", false},
	}
	for _, tc := range cases {
		s, tl, ok := splitToolName(tc.in)
		if ok != tc.ok || (ok && (s != tc.server || tl != tc.tool)) {
			t.Errorf("splitToolName(%q) = %q, %q, %v", tc.in, s, tl, ok)
		}
	}
}

func TestMapResult(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nrest")
	cases := []struct {
		name  string
		res   *sdk.CallToolResult
		limit int
		check func(t *testing.T, text string, v resultView, isErr bool)
	}{
		{"text and error flag", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "boom"}}}, 100,
			func(t *testing.T, text string, _ resultView, isErr bool) {
				if text != "boom" || !isErr {
					t.Fatalf("%q %v", text, isErr)
				}
			}},
		{"text cut at the limit on a rune boundary", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "aé" + strings.Repeat("é", 50)}}}, 4,
			func(t *testing.T, text string, _ resultView, _ bool) {
				if !strings.HasPrefix(text, "aé\n[truncated: 3 of 103 bytes shown") {
					t.Fatalf("%q", text)
				}
			}},
		{"image within budget", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: png, MIMEType: "image/png"}}}, 100,
			func(t *testing.T, _ string, v resultView, _ bool) {
				if v.images != 1 || v.imageMime != "image/png" {
					t.Fatalf("%+v", v)
				}
			}},
		{"image over budget becomes a note", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: png, MIMEType: "image/png"}}}, 4,
			func(t *testing.T, text string, v resultView, _ bool) {
				if v.images != 0 || !strings.Contains(text, "image/png of 12 bytes left out") {
					t.Fatalf("%q %+v", text, v)
				}
			}},
		{"structured content", &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, 100,
			func(t *testing.T, _ string, v resultView, _ bool) {
				if string(v.structured) != `{"n":1}` {
					t.Fatalf("%s", v.structured)
				}
			}},
		{"structured over budget", &sdk.CallToolResult{StructuredContent: map[string]any{"n": strings.Repeat("x", 50)}}, 10,
			func(t *testing.T, text string, v resultView, _ bool) {
				if v.structured != nil || !strings.Contains(text, "structured content of 58 bytes left out") {
					t.Fatalf("%q %s", text, v.structured)
				}
			}},
		{"embedded text resource and link", &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a", Text: "alpha"}},
			&sdk.ResourceLink{URI: "file:///b", Name: "b"},
		}}, 1000,
			func(t *testing.T, text string, _ resultView, _ bool) {
				if !strings.Contains(text, "[resource <file:///a>]\nalpha") || !strings.Contains(text, "[resource link] b <file:///b>") {
					t.Fatalf("%q", text)
				}
			}},
		{"empty result", &sdk.CallToolResult{}, 10,
			func(t *testing.T, text string, _ resultView, _ bool) {
				if text != "" {
					t.Fatalf("%q", text)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mapResult(tc.res, tc.limit)
			tc.check(t, resultText(r), view(r), r.IsError)
		})
	}
}

func TestToolHashIgnoresKeyOrder(t *testing.T) {
	a := toolHash("t", "", "d", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), nil, nil)
	b := toolHash("t", "", "d", json.RawMessage(`{ "properties":{"a":{"type":"string"}}, "type":"object"}`), nil, nil)
	c := toolHash("t", "", "d", json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}}}`), nil, nil)
	ro := toolHash("t", "", "d", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), nil, json.RawMessage(`{"readOnlyHint":true}`))
	if a != b {
		t.Fatal("key order changed the hash")
	}
	if a == c || a == ro {
		t.Fatal("a schema or annotation change kept the hash")
	}
}
