package factory

import (
	"errors"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/openai"
)

func scriptFile(t *testing.T) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "script", "testdata", "good.json")
}

func TestNew(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	cfg := Config{
		Anthropic: anthropic.Config{APIKey: "sk-ant-cfg"},
		OpenAI:    openai.Config{BaseURL: "http://127.0.0.1:11434/v1"},
	}
	cases := []struct {
		name      string
		spec      string
		cfg       Config
		wantName  string
		wantModel string
		wantErr   error
		errAny    bool
	}{
		{name: "empty is the demo", spec: "", cfg: cfg, wantName: "script", wantModel: "demo"},
		{name: "demo", spec: "demo", cfg: cfg, wantName: "script", wantModel: "demo"},
		{name: "anthropic", spec: "anthropic:claude-sonnet-4-5", cfg: cfg, wantName: "anthropic", wantModel: "claude-sonnet-4-5"},
		{name: "openai-compatible with a tag", spec: "openai:llama3.1:8b", cfg: cfg, wantName: "openai", wantModel: "llama3.1:8b"},
		{name: "script file", spec: "script:" + scriptFile(t), cfg: cfg, wantName: "script", wantModel: scriptFile(t)},
		{name: "anthropic without key", spec: "anthropic:claude-sonnet-4-5", wantErr: model.ErrAuth},
		{name: "openai without key", spec: "openai:gpt-4.1", wantErr: model.ErrAuth},
		{name: "missing script", spec: "script:/nonexistent/turns.json", cfg: cfg, wantErr: model.ErrBadRequest},
		{name: "unknown provider", spec: "gemini:pro", cfg: cfg, errAny: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec, tc.cfg)
			switch {
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			case tc.errAny:
				if err == nil {
					t.Fatal("no error")
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if p.Name() != tc.wantName || p.Model() != tc.wantModel {
				t.Errorf("got %s/%s, want %s/%s", p.Name(), p.Model(), tc.wantName, tc.wantModel)
			}
		})
	}
}
