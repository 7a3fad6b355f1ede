package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/warden-dev/warden/backend/runtime/model"
)

// FuzzStream feeds arbitrary SSE bodies through the SDK decoder and this
// package's translation: it must end in an error or in a response whose
// tool calls carry valid JSON, never in a panic.
func FuzzStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.sse"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res := &http.Response{
			StatusCode: http.StatusOK,
			Header:     http.Header{"Content-Type": {"text/event-stream"}},
			Body:       io.NopCloser(bytes.NewReader(body)),
			Request:    httptest.NewRequest(http.MethodPost, "/v1/messages", nil),
		}
		st := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
		names := model.NewNameMap("shell.exec", "fs.list", "mcp-tool:files/read_file")
		resp, err := model.Collect(newStream(context.Background(), st, names, "m"), nil)
		if err != nil {
			return
		}
		if resp.StopReason == "" {
			t.Fatal("clean end without a stop reason")
		}
		for _, c := range resp.Message.ToolCalls {
			if c.ID == "" || c.Name == "" || !json.Valid(c.Args) {
				t.Fatalf("bad call %+v", c)
			}
		}
	})
}
