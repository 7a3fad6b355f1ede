package settings_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/settings"
)

// providerAPI speaks the models endpoint of both providers as a real server
// does (Anthropic's paginated with has_more / last_id / after_id, OpenAI's
// as one list), refuses a wrong key with 401 and notes a request whose path
// or headers are not what the provider's API requires. Which exact headers
// the Anthropic SDK sends is pinned by TestProbeSendsWhatChatSends.
type providerAPI struct {
	*httptest.Server
	key      string // the one key it accepts
	status   int    // answer this status instead (0: serve)
	delay    time.Duration
	pageSize int // anthropic page size; 0: everything in one page

	mu       sync.Mutex
	afterIDs []string
	problems []string
}

func newProviderAPI(t *testing.T, key string, mod func(*providerAPI)) *providerAPI {
	t.Helper()
	p := &providerAPI{key: key}
	if mod != nil {
		mod(p)
	}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *providerAPI) problem(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Sprintf(format, a...))
}

func (p *providerAPI) serve(w http.ResponseWriter, r *http.Request) {
	if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-r.Context().Done():
			return
		}
	}
	if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
		p.problem("%s %s", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	// The Anthropic SDK in go.mod authenticates with a Bearer header (older
	// ones used x-api-key); either is accepted, never both.
	anthropic := r.Header.Get("anthropic-version") != ""
	got, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if x := r.Header.Get("x-api-key"); anthropic && x != "" {
		if bearer {
			p.problem("both x-api-key and Authorization")
		}
		got = x
	}
	if !anthropic && r.Header.Get("x-api-key") != "" {
		p.problem("an OpenAI request with x-api-key")
	}
	if p.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(p.status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"api_error","message":"status %d"}}`, p.status)
		return
	}
	if got != p.key {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if !anthropic {
		_, _ = w.Write([]byte(readFileOrPanic("testdata/openai-models.json")))
		return
	}
	var all []map[string]any
	if err := json.Unmarshal([]byte(readFileOrPanic("testdata/anthropic-models.json")), &all); err != nil {
		panic(err)
	}
	after := r.URL.Query().Get("after_id")
	p.mu.Lock()
	p.afterIDs = append(p.afterIDs, after)
	p.mu.Unlock()
	start := 0
	for i, m := range all {
		if m["id"] == after {
			start = i + 1
		}
	}
	end := len(all)
	if p.pageSize > 0 && start+p.pageSize < end {
		end = start + p.pageSize
	}
	page := all[start:end]
	body := map[string]any{"data": page, "has_more": end < len(all), "first_id": nil, "last_id": nil}
	if len(page) > 0 {
		body["first_id"], body["last_id"] = page[0]["id"], page[len(page)-1]["id"]
	}
	_ = json.NewEncoder(w).Encode(body)
}

func readFileOrPanic(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// probeService is a settings service with a short probe timeout.
func probeService(t *testing.T, r *rig) *settings.Service {
	t.Helper()
	s, err := settings.New(settings.Options{ConfigPath: r.path, Runtime: r.g.Service, BuildProvider: assemble.Provider,
		ProbeTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTestConnection(t *testing.T) {
	const key = "sk-test-key-0123456789"
	type want struct {
		ok, found bool
		count     int
		msg       string
	}
	cases := []struct {
		name     string
		provider string
		mod      func(*providerAPI)
		base     func(api *providerAPI) string // default: the API's URL (+/v1 for openai)
		args     settings.ProbeArgs
		env      map[string]string
		config   string // config.toml holding a stored key
		want     want
		wantErr  string
	}{
		{name: "anthropic good key, model found", provider: "anthropic", args: settings.ProbeArgs{APIKey: key, Model: "claude-sonnet-4-5"},
			want: want{ok: true, found: true, count: 5, msg: "Connected: 5 models; claude-sonnet-4-5 is available."}},
		{name: "anthropic model not found", provider: "anthropic", args: settings.ProbeArgs{APIKey: key, Model: "claude-9"},
			want: want{ok: true, count: 5, msg: "Connected, but model claude-9 is not in the list."}},
		{name: "anthropic pages", provider: "anthropic", mod: func(p *providerAPI) { p.pageSize = 2 }, args: settings.ProbeArgs{APIKey: key, Model: "claude-3-haiku-20240307"},
			want: want{ok: true, found: true, count: 5, msg: "Connected: 5 models; claude-3-haiku-20240307 is available."}},
		{name: "anthropic wrong key is 401", provider: "anthropic", args: settings.ProbeArgs{APIKey: "sk-wrong"},
			want: want{msg: "The API key was refused (401)."}},
		{name: "anthropic 403", provider: "anthropic", mod: func(p *providerAPI) { p.status = 403 }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: "The API key was refused (403)."}},
		{name: "anthropic 500", provider: "anthropic", mod: func(p *providerAPI) { p.status = 500 }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: "The server failed (500); try again later."}},
		{name: "anthropic empty key uses the environment", provider: "anthropic", env: map[string]string{"ANTHROPIC_API_KEY": key},
			args: settings.ProbeArgs{Model: "claude-haiku-4-5"}, want: want{ok: true, found: true, count: 5, msg: "Connected: 5 models; claude-haiku-4-5 is available."}},
		{name: "anthropic empty key uses the file", provider: "anthropic",
			config: "[model]\nspec = \"anthropic:claude-sonnet-4-5\"\napi_key = \"" + key + "\"\n",
			args:   settings.ProbeArgs{}, want: want{ok: true, count: 5, msg: "Connected: 5 models."}},
		{name: "openai does not get anthropic's stored key", provider: "openai",
			config: "[model]\nspec = \"anthropic:claude-sonnet-4-5\"\napi_key = \"" + key + "\"\n",
			args:   settings.ProbeArgs{}, want: want{msg: "The API key was refused (401)."}},
		{name: "anthropic no key anywhere", provider: "anthropic", args: settings.ProbeArgs{},
			want: want{msg: "No API key: enter one or set ANTHROPIC_API_KEY."}},
		{name: "anthropic slow server", provider: "anthropic", mod: func(p *providerAPI) { p.delay = 3 * time.Second }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: "within 300ms."}},
		{name: "anthropic closed port", provider: "anthropic", base: func(*providerAPI) string { return "" }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: ": connection refused."}},
		{name: "openai good key, model found", provider: "openai", args: settings.ProbeArgs{APIKey: key, Model: "gpt-4.1"},
			want: want{ok: true, found: true, count: 3, msg: "Connected: 3 models; gpt-4.1 is available."}},
		{name: "openai model not found", provider: "openai", args: settings.ProbeArgs{APIKey: key, Model: "gpt-9"},
			want: want{ok: true, count: 3, msg: "Connected, but model gpt-9 is not in the list."}},
		{name: "openai 401", provider: "openai", args: settings.ProbeArgs{APIKey: "sk-wrong"}, want: want{msg: "The API key was refused (401)."}},
		{name: "openai 403", provider: "openai", mod: func(p *providerAPI) { p.status = 403 }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: "The API key was refused (403)."}},
		{name: "openai 500", provider: "openai", mod: func(p *providerAPI) { p.status = 500 }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: "The server failed (500); try again later."}},
		{name: "openai empty key uses the environment", provider: "openai", env: map[string]string{"OPENAI_API_KEY": key},
			args: settings.ProbeArgs{Model: "o3"}, want: want{ok: true, found: true, count: 3, msg: "Connected: 3 models; o3 is available."}},
		{name: "openai base without /v1 has no models endpoint", provider: "openai", base: func(a *providerAPI) string { return a.URL },
			args: settings.ProbeArgs{APIKey: key}, want: want{msg: "has no models endpoint (404): check the base URL."}},
		{name: "openai slow server", provider: "openai", mod: func(p *providerAPI) { p.delay = 3 * time.Second }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: "within 300ms."}},
		{name: "openai closed port", provider: "openai", base: func(*providerAPI) string { return "" }, args: settings.ProbeArgs{APIKey: key},
			want: want{msg: ": connection refused."}},
		{name: "demo needs no network", provider: "demo", want: want{ok: true, found: true, count: 1, msg: "no connection is needed"}},
		{name: "script file", provider: "script", args: settings.ProbeArgs{Model: "testdata/script.json"},
			want: want{ok: true, found: true, count: 1, msg: "The script script.json runs locally"}},
		{name: "script file missing", provider: "script", args: settings.ProbeArgs{Model: "testdata/none.json"},
			want: want{msg: "Cannot read the script file"}},
		{name: "unknown provider is an error", provider: "gemini", wantErr: "unknown provider"},
		{name: "bad base URL is an error", provider: "openai", base: func(*providerAPI) string { return "file:///etc" }, wantErr: "http:// or https://"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.config != "" {
				writeConfig(t, r.path, tc.config)
			}
			api := newProviderAPI(t, key, tc.mod)
			a := tc.args
			a.Provider = tc.provider
			switch {
			case tc.base != nil:
				a.BaseURL = tc.base(api)
				if a.BaseURL == "" {
					a.BaseURL = closedPort(t)
				}
			case tc.provider == "anthropic":
				a.BaseURL = api.URL
			case tc.provider == "openai":
				a.BaseURL = api.URL + "/v1"
			}
			res, err := probeService(t, r).TestConnection(context.Background(), a)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, settings.ErrInvalid) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if res.OK != w.ok || res.ModelFound != w.found || res.ModelCount != w.count || !strings.Contains(res.Message, w.msg) {
				t.Errorf("result %+v, want %+v", res, w)
			}
			if strings.Contains(res.Message, key) {
				t.Errorf("the key is in the message: %s", res.Message)
			}
			api.mu.Lock()
			defer api.mu.Unlock()
			if len(api.problems) > 0 && tc.base == nil {
				t.Errorf("wire problems: %v", api.problems)
			}
			if tc.mod != nil && api.pageSize == 2 && strings.Join(api.afterIDs, ",") != ",claude-sonnet-4-5,claude-3-5-haiku-20241022" {
				t.Errorf("pages asked after %q", api.afterIDs)
			}
		})
	}
}

func TestListModels(t *testing.T) {
	const key = "sk-test-key-0123456789"
	r := newRig(t, "")
	s := probeService(t, r)
	api := newProviderAPI(t, key, func(p *providerAPI) { p.pageSize = 3 })
	ctx := context.Background()

	got, err := s.ListModels(ctx, settings.ProbeArgs{Provider: "anthropic", BaseURL: api.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[1] != (settings.ModelInfo{ID: "claude-sonnet-4-5", DisplayName: "Claude Sonnet 4.5", CreatedAt: "2025-09-29T00:00:00Z"}) {
		t.Errorf("anthropic models %+v", got)
	}
	got, err = s.ListModels(ctx, settings.ProbeArgs{Provider: "openai", BaseURL: api.URL + "/v1", APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != (settings.ModelInfo{ID: "gpt-4.1", DisplayName: "gpt-4.1", CreatedAt: "2025-04-10T20:22:22Z"}) {
		t.Errorf("openai models %+v", got)
	}
	_, err = s.ListModels(ctx, settings.ProbeArgs{Provider: "openai", BaseURL: api.URL + "/v1", APIKey: "sk-wrong"})
	if err == nil || err.Error() != "The API key was refused (401)." {
		t.Errorf("refused key: %v", err)
	}
	got, err = s.ListModels(ctx, settings.ProbeArgs{Provider: "demo"})
	if err != nil || len(got) != 1 || got[0].ID != "demo" {
		t.Errorf("demo: %+v %v", got, err)
	}
	script, _ := filepath.Abs("testdata/script.json")
	got, err = s.ListModels(ctx, settings.ProbeArgs{Provider: "script", Model: script})
	if err != nil || len(got) != 1 || got[0].ID != script {
		t.Errorf("script: %+v %v", got, err)
	}
}

// The probe authenticates exactly as chat does: same auth header, same API
// version, so a key the probe accepts is a key chat can use.
func TestProbeSendsWhatChatSends(t *testing.T) {
	const key = "sk-test-key-0123456789"
	var mu sync.Mutex
	seen := map[string]http.Header{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"recorded"}}`)
	}))
	t.Cleanup(srv.Close)
	r := newRig(t, "")
	s := probeService(t, r)
	cases := []struct {
		name, spec, base, probePath, chatPath string
		headers                               []string
	}{
		{name: "anthropic", spec: "anthropic:claude-sonnet-4-5", base: srv.URL, probePath: "/v1/models", chatPath: "/v1/messages",
			headers: []string{"Authorization", "X-Api-Key", "Anthropic-Version"}},
		{name: "openai", spec: "openai:gpt-4.1", base: srv.URL + "/v1", probePath: "/v1/models", chatPath: "/v1/chat/completions",
			headers: []string{"Authorization", "X-Api-Key"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prov, _, err := assemble.Provider(tc.spec, tc.base, key)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if st, err := prov.Stream(ctx, model.Request{Messages: []model.Message{model.UserMessage("hi")}}); err == nil {
				st.Close()
			}
			res, err := s.TestConnection(ctx, settings.ProbeArgs{Provider: strings.Split(tc.spec, ":")[0], BaseURL: tc.base, APIKey: key})
			if err != nil || res.OK {
				t.Fatalf("probe %+v %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			probe, chat := seen[tc.probePath], seen[tc.chatPath]
			if probe == nil || chat == nil {
				t.Fatalf("requests seen: %v", seen)
			}
			for _, h := range tc.headers {
				if probe.Get(h) != chat.Get(h) {
					t.Errorf("%s: probe sent %q, chat sent %q", h, probe.Get(h), chat.Get(h))
				}
			}
			if probe.Get("Authorization") != "Bearer "+key && probe.Get("X-Api-Key") != key {
				t.Errorf("the key was not sent: %v", probe)
			}
		})
	}
}
