package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/factory"
	"github.com/warden-dev/warden/backend/runtime/model/modeltest"
	"github.com/warden-dev/warden/backend/runtime/model/openai"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/tools/browser"
	"github.com/warden-dev/warden/backend/tools/computer"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// wireScript builds a script from turns given as JSON.
func wireScript(t *testing.T, turns string) *script.Script {
	t.Helper()
	sc, err := script.Parse([]byte(`{"version": 1, "turns": ` + turns + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// wireProvider points the real provider of a protocol at a fake server
// speaking it; spec options ("#text-only") go through the factory as a
// user's spec would.
func wireProvider(t *testing.T, protocol, options string, sc *script.Script) (model.Provider, *modeltest.Server) {
	t.Helper()
	var srv *modeltest.Server
	var cfg factory.Config
	switch protocol {
	case "anthropic":
		srv = modeltest.NewAnthropic(sc)
		cfg.Anthropic = anthropic.Config{APIKey: "sk-ant-test", BaseURL: srv.URL, MaxRetries: -1}
	case "openai":
		srv = modeltest.NewOpenAI(sc)
		cfg.OpenAI = openai.Config{APIKey: "sk-test", BaseURL: srv.URL + "/v1", MaxRetries: -1}
	}
	t.Cleanup(srv.Close)
	sp, err := model.ParseModelSpec(protocol + ":test-model" + options)
	must(t, err)
	p, err := factory.FromSpec(sp, cfg)
	must(t, err)
	return p, srv
}

// requestImages returns the decoded images of a request body, in order,
// and where each sat: "tool_result" (Anthropic, inside the result block)
// or "user" (a user message's content part).
func requestImages(t *testing.T, protocol string, body []byte) (imgs [][]byte, where []string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	must(t, json.Unmarshal(body, &req))
	type block struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
		Source  struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	decode := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		must(t, err)
		return b
	}
	for _, m := range req.Messages {
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string
		}
		for _, b := range blocks {
			switch {
			case protocol == "anthropic" && b.Type == "tool_result":
				var inner []block
				_ = json.Unmarshal(b.Content, &inner)
				for _, ib := range inner {
					if ib.Type == "image" && ib.Source.Type == "base64" && ib.Source.MediaType == "image/png" {
						imgs, where = append(imgs, decode(ib.Source.Data)), append(where, "tool_result")
					}
				}
			case protocol == "anthropic" && b.Type == "image":
				imgs, where = append(imgs, decode(b.Source.Data)), append(where, m.Role)
			case protocol == "openai" && b.Type == "image_url":
				data, ok := strings.CutPrefix(b.ImageURL.URL, "data:image/png;base64,")
				if !ok {
					t.Fatalf("image url %.40q is not a PNG data URL", b.ImageURL.URL)
				}
				imgs, where = append(imgs, decode(data)), append(where, m.Role)
			}
		}
	}
	return imgs, where
}

func pageSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Shop</title><body style="background:#fc0"><h1>Checkout</h1></body>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestScreenshotsReachTheModel: after a browser screenshot, the next
// request to the model carries the PNG as an image part — inside the
// tool_result for Anthropic, in a user message right after the tool
// messages for OpenAI-compatible servers — and a spec marked text-only
// gets a note instead.
func TestScreenshotsReachTheModel(t *testing.T) {
	site := pageSite(t)
	mgr := browser.NewManager(browser.Options{DriverDir: filepath.Join(t.TempDir(), "driver")})
	t.Cleanup(func() { _ = mgr.Shutdown() })
	cases := []struct {
		name, protocol, options string
		where                   string // where the image must sit; "" for none
		maxEdge                 int    // configured cap; the 1280x720 viewport must come down to it
	}{
		{"anthropic tool_result image block", "anthropic", "", "tool_result", 0},
		{"openai user message after the tool messages", "openai", "", "user", 0},
		{"anthropic downscaled to the configured edge", "anthropic", "", "tool_result", 640},
		{"openai downscaled to the configured edge", "openai", "", "user", 500},
		{"openai text-only spec gets no image", "openai", "#text-only", "", 0},
		{"anthropic text-only spec gets no image", "anthropic", "#text-only", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := wireScript(t, `[
				{"tool_calls": [{"id": "call_nav", "name": "browser.action", "args": {"action": "navigate", "url": "`+site.URL+`/"}}]},
				{"tool_calls": [{"id": "call_shot", "name": "browser.action", "args": {"action": "screenshot"}}]},
				{"text": "The checkout page is yellow."}]`)
			prov, srv := wireProvider(t, tc.protocol, tc.options, sc)
			r := newRig(t, prov, func(c *rigConfig) {
				must(t, c.Tools.Register(browser.NewActionTool(mgr)))
				c.Images.MaxEdge = tc.maxEdge
			})
			s := r.session(nil)
			must(t, r.svc.Run(context.Background(), s.ID, "look at the shop"))
			bodies := srv.Bodies()
			if len(bodies) != 3 {
				t.Fatalf("%d model requests, want 3", len(bodies))
			}
			if imgs, _ := requestImages(t, tc.protocol, bodies[1]); len(imgs) != 0 {
				t.Fatalf("a navigate result carried %d images", len(imgs))
			}
			imgs, where := requestImages(t, tc.protocol, bodies[2])
			if tc.where == "" {
				if len(imgs) != 0 || bytes.Contains(bodies[2], []byte("iVBORw0KGgo")) {
					t.Fatal("a text-only model was sent an image")
				}
				if !bytes.Contains(bodies[2], []byte("this model takes text only")) {
					t.Fatal("the text-only model is not told a picture was left out")
				}
				return
			}
			if len(imgs) != 1 || where[0] != tc.where || !bytes.HasPrefix(imgs[0], pngMagic) {
				t.Fatalf("images %d at %v, want one PNG in %s", len(imgs), where, tc.where)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(imgs[0]))
			must(t, err)
			wantW := 1280
			if tc.maxEdge > 0 {
				wantW = tc.maxEdge
			}
			if cfg.Width != wantW || cfg.Height != 720*wantW/1280 {
				t.Fatalf("the model got a %dx%d picture, want %dx%d", cfg.Width, cfg.Height, wantW, 720*wantW/1280)
			}
			if tc.protocol == "openai" {
				assertImageAfterToolMessages(t, bodies[2])
			}
		})
	}
}

// assertImageAfterToolMessages: the user message with the image comes
// right after the tool messages of the turn, not before them.
func assertImageAfterToolMessages(t *testing.T, body []byte) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	must(t, json.Unmarshal(body, &req))
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	got := strings.Join(roles, ",")
	if !strings.HasSuffix(got, "assistant,tool,user") {
		t.Fatalf("roles %s: the image message does not follow the tool message", got)
	}
}

// TestDesktopScreenshotReachesTheModel drives computer.use on a private
// Xvfb and checks the screen comes back to the model as a PNG.
func TestDesktopScreenshotReachesTheModel(t *testing.T) {
	display := startXvfb(t)
	for _, protocol := range []string{"anthropic", "openai"} {
		t.Run(protocol, func(t *testing.T) {
			sc := wireScript(t, `[
				{"tool_calls": [{"id": "call_screen", "name": "computer.use", "args": {"action": "screenshot"}}]},
				{"text": "The screen is empty."}]`)
			prov, srv := wireProvider(t, protocol, "", sc)
			r := newRig(t, prov, func(c *rigConfig) {
				must(t, c.Tools.Register(computer.New(computer.Options{Display: display})))
			})
			s := r.session(nil)
			must(t, r.svc.Run(context.Background(), s.ID, "what is on the screen?"))
			bodies := srv.Bodies()
			if len(bodies) != 2 {
				t.Fatalf("%d model requests", len(bodies))
			}
			imgs, _ := requestImages(t, protocol, bodies[1])
			if len(imgs) != 1 || !bytes.HasPrefix(imgs[0], pngMagic) {
				t.Fatalf("%d images in the request after the screenshot", len(imgs))
			}
		})
	}
}

// startXvfb starts a private X server and returns its display. A missing
// Xvfb fails: this test exists to prove the path on a real X server.
func startXvfb(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Fatalf("Xvfb is required (apt install xvfb): %v", err)
	}
	pr, pw, err := os.Pipe()
	must(t, err)
	cmd := exec.Command(bin, "-displayfd", "3", "-nolisten", "tcp", "-noreset", "-screen", "0", "640x480x24")
	cmd.ExtraFiles = []*os.File{pw}
	must(t, cmd.Start())
	pw.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb exited without a display")
		}
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not start")
	}
	return ""
}

// A long session resends only the newest pictures.
func TestKeepNewestImages(t *testing.T) {
	img := func() model.Part { return model.ImagePart("image/png", pngMagic) }
	msgs := []model.Message{
		{Role: model.RoleUser, Content: []model.Part{model.TextPart("hi"), img()}},
		model.ToolResultsMessage(model.ToolResult{CallID: "a", Content: []model.Part{model.TextPart("a"), img(), img()}}),
		model.ToolResultsMessage(model.ToolResult{CallID: "b", Content: []model.Part{model.TextPart("b"), img()}}),
	}
	keepNewestImages(msgs, 2)
	count := func(ps []model.Part) (n int) {
		for _, p := range ps {
			if p.Type == model.PartImage {
				n++
			}
		}
		return n
	}
	if count(msgs[0].Content) != 0 || count(msgs[1].Results[0].Content) != 1 || count(msgs[2].Results[0].Content) != 1 {
		t.Fatalf("kept %d/%d/%d", count(msgs[0].Content), count(msgs[1].Results[0].Content), count(msgs[2].Results[0].Content))
	}
	if !strings.Contains(model.JoinText(msgs[0].Content), "no longer shown") {
		t.Fatal("a dropped picture leaves no note")
	}
}
