package settings_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/mcp/mcpconfig"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

const secret = "sk-ant-api03-very-secret-a1B2"

func TestGetSettingsNeverShowsTheKey(t *testing.T) {
	cases := []struct {
		name   string
		config string
		env    map[string]string
		want   settings.ModelSettings
	}{
		{name: "key in the file", config: "[model]\nspec = \"anthropic:claude-sonnet-4-5\"\napi_key = \"" + secret + "\"\n",
			want: settings.ModelSettings{Provider: "anthropic", Model: "claude-sonnet-4-5", APIKeySet: true, APIKeySource: "config", APIKeyHint: "…a1B2"}},
		{name: "key in the environment", config: "[model]\nspec = \"anthropic:claude-sonnet-4-5\"\n", env: map[string]string{"ANTHROPIC_API_KEY": secret},
			want: settings.ModelSettings{Provider: "anthropic", Model: "claude-sonnet-4-5", APIKeySet: true, APIKeySource: "env:ANTHROPIC_API_KEY", APIKeyHint: "…a1B2"}},
		{name: "openai env is not anthropic's", config: "[model]\nspec = \"openai:gpt-4.1\"\nbase_url = \"http://127.0.0.1:11434/v1\"\n",
			env:  map[string]string{"ANTHROPIC_API_KEY": secret},
			want: settings.ModelSettings{Provider: "openai", Model: "gpt-4.1", BaseURL: "http://127.0.0.1:11434/v1"}},
		{name: "short key shows no characters", config: "[model]\nspec = \"openai:gpt-4.1\"\napi_key = \"sk-a1B2\"\n",
			want: settings.ModelSettings{Provider: "openai", Model: "gpt-4.1", APIKeySet: true, APIKeySource: "config", APIKeyHint: "…"}},
		{name: "nothing configured is the demo", want: settings.ModelSettings{Provider: "demo"}},
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
			got, err := r.g.Settings.GetSettings(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got.Model != tc.want {
				t.Errorf("model %+v, want %+v", got.Model, tc.want)
			}
			raw, _ := json.Marshal(got)
			if strings.Contains(string(raw), "very-secret") {
				t.Fatalf("the key left Go: %s", raw)
			}
			if got.ConfigPath != r.path || got.ActiveModel != "script:demo" || len(got.Providers) != 4 || got.Warnings == nil {
				t.Errorf("settings %s", raw)
			}
		})
	}
}

func TestSaveModelSettingsRejectsBadInput(t *testing.T) {
	cases := []struct {
		name string
		args settings.ModelArgs
		want string
	}{
		{name: "unknown provider", args: settings.ModelArgs{Provider: "gemini", Model: "pro"}, want: "unknown provider"},
		{name: "anthropic without a model", args: settings.ModelArgs{Provider: "anthropic", APIKey: secret}, want: "needs a model name"},
		{name: "openai without a model", args: settings.ModelArgs{Provider: "openai", BaseURL: "http://127.0.0.1:1/v1"}, want: "needs a model name"},
		{name: "model with a space", args: settings.ModelArgs{Provider: "openai", Model: "gpt 4", APIKey: secret}, want: "spaces"},
		{name: "script file missing", args: settings.ModelArgs{Provider: "script", Model: "/nonexistent/turns.json"}, want: "does not exist"},
		{name: "script is a folder", args: settings.ModelArgs{Provider: "script", Model: "testdata"}, want: "not a regular file"},
		{name: "base url not http", args: settings.ModelArgs{Provider: "openai", Model: "gpt-4.1", BaseURL: "ftp://example.com"}, want: "http:// or https://"},
		{name: "base url without host", args: settings.ModelArgs{Provider: "openai", Model: "gpt-4.1", BaseURL: "http://"}, want: "with a host"},
		{name: "base url with credentials", args: settings.ModelArgs{Provider: "openai", Model: "gpt-4.1", BaseURL: "http://u:p@h/v1"}, want: "credentials"},
		{name: "key and clear together", args: settings.ModelArgs{Provider: "anthropic", Model: "m", APIKey: secret, ClearAPIKey: true}, want: "not both"},
		{name: "key with a newline inside", args: settings.ModelArgs{Provider: "anthropic", Model: "m", APIKey: "sk-a\nb"}, want: "control"},
		{name: "anthropic with no key anywhere", args: settings.ModelArgs{Provider: "anthropic", Model: "claude-sonnet-4-5"}, want: "no API key"},
		{name: "openai default endpoint with no key", args: settings.ModelArgs{Provider: "openai", Model: "gpt-4.1"}, want: "no API key"},
		{name: "script file that is not a script", args: settings.ModelArgs{Provider: "script", Model: "testdata/mcp.toml"}, want: "cannot use"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "")
			_, err := r.g.Settings.SaveModelSettings(context.Background(), tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if !errors.Is(err, settings.ErrInvalid) {
				t.Errorf("err %v is not ErrInvalid", err)
			}
			if _, serr := os.Stat(r.path); !os.IsNotExist(serr) {
				t.Errorf("a file was written: %s", fileOrNone(r.path))
			}
			if m := r.activeModel(t); m != "script:demo" {
				t.Errorf("running model changed to %s", m)
			}
		})
	}
}

func TestSaveModelSettingsSwitchesTheRunningModel(t *testing.T) {
	script, _ := filepath.Abs(filepath.Join("testdata", "script.json"))
	cases := []struct {
		name       string
		args       settings.ModelArgs
		env        map[string]string
		wantActive string
		wantSpec   string
	}{
		{name: "anthropic with a key", args: settings.ModelArgs{Provider: "anthropic", Model: "claude-sonnet-4-5", APIKey: " " + secret + "\n"},
			wantActive: "anthropic:claude-sonnet-4-5", wantSpec: "anthropic:claude-sonnet-4-5"},
		{name: "anthropic key from the environment", args: settings.ModelArgs{Provider: "anthropic", Model: "claude-haiku-4-5"},
			env: map[string]string{"ANTHROPIC_API_KEY": secret}, wantActive: "anthropic:claude-haiku-4-5", wantSpec: "anthropic:claude-haiku-4-5"},
		{name: "local openai-compatible without a key", args: settings.ModelArgs{Provider: "openai", Model: "llama3.1:8b", BaseURL: "http://127.0.0.1:11434/v1"},
			wantActive: "openai:llama3.1:8b", wantSpec: "openai:llama3.1:8b"},
		{name: "script file", args: settings.ModelArgs{Provider: "script", Model: "testdata/script.json"},
			wantActive: "script:" + script, wantSpec: "script:" + script},
		{name: "demo", args: settings.ModelArgs{Provider: "demo", Model: "ignored"}, wantActive: "script:demo", wantSpec: "demo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if m := r.activeModel(t); m != "script:demo" {
				t.Fatalf("before: %s", m)
			}
			got, err := r.g.Settings.SaveModelSettings(context.Background(), tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if m := r.activeModel(t); m != tc.wantActive || got.ActiveModel != tc.wantActive {
				t.Errorf("after: Info %s, Settings %s, want %s", m, got.ActiveModel, tc.wantActive)
			}
			fi, err := os.Stat(r.path)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("config file: %v %v", fi, err)
			}
			c, err := config.Load(r.path, "")
			if err != nil || c.Model != tc.wantSpec {
				t.Errorf("file model %q (%v), want %q", c.Model, err, tc.wantSpec)
			}
			raw, _ := json.Marshal(got)
			if strings.Contains(string(raw), "very-secret") {
				t.Fatalf("the key left Go: %s", raw)
			}
		})
	}
}

// The stored key stays with its provider: kept on a model or base URL
// change, forgotten when the provider changes, removed on request.
func TestSaveModelSettingsKeyHandling(t *testing.T) {
	r := newRig(t, "")
	ctx := context.Background()
	steps := []struct {
		name    string
		args    settings.ModelArgs
		wantKey string
	}{
		{name: "set", args: settings.ModelArgs{Provider: "anthropic", Model: "claude-sonnet-4-5", APIKey: secret}, wantKey: secret},
		{name: "kept on a model change", args: settings.ModelArgs{Provider: "anthropic", Model: "claude-haiku-4-5"}, wantKey: secret},
		{name: "not sent to the other provider", args: settings.ModelArgs{Provider: "openai", Model: "qwen", BaseURL: "http://127.0.0.1:11434/v1"}},
		{name: "new key", args: settings.ModelArgs{Provider: "openai", Model: "gpt-4.1", APIKey: "sk-proj-0123456789abcd"}, wantKey: "sk-proj-0123456789abcd"},
		{name: "kept with a base URL change", args: settings.ModelArgs{Provider: "openai", Model: "gpt-4.1", BaseURL: "https://proxy.example/v1"}, wantKey: "sk-proj-0123456789abcd"},
		{name: "cleared", args: settings.ModelArgs{Provider: "openai", Model: "qwen", BaseURL: "http://127.0.0.1:11434/v1", ClearAPIKey: true}},
		{name: "set again", args: settings.ModelArgs{Provider: "anthropic", Model: "claude-sonnet-4-5", APIKey: secret}, wantKey: secret},
		{name: "forgotten by the demo", args: settings.ModelArgs{Provider: "demo"}},
	}
	for _, st := range steps {
		got, err := r.g.Settings.SaveModelSettings(ctx, st.args)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		uf, err := config.ReadUser(r.path)
		if err != nil {
			t.Fatal(err)
		}
		if uf.Model.APIKey != st.wantKey || got.Model.APIKeySet != (st.wantKey != "") {
			t.Errorf("%s: stored key %q set=%v, want %q", st.name, uf.Model.APIKey, got.Model.APIKeySet, st.wantKey)
		}
	}
}

// A hand-kept file with an MCP server and comments: after a save the
// server still loads and Load gives the new model.
func TestSaveModelSettingsKeepsMCPServers(t *testing.T) {
	r := newRig(t, "mcp.toml")
	if _, err := r.g.Settings.SaveModelSettings(context.Background(), settings.ModelArgs{Provider: "openai", Model: "gpt-4.1",
		BaseURL: "http://127.0.0.1:11434/v1"}); err != nil {
		t.Fatal(err)
	}
	mc := mcpconfig.LoadConfig(r.path, "")
	if len(mc.Errors) > 0 || mc.Servers["noisy"].Command != "sh" {
		t.Fatalf("MCP config after save: %+v", mc)
	}
	c, err := config.Load(r.path, "")
	if err != nil || c.Model != "openai:gpt-4.1" || c.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Fatalf("config %+v %v", c, err)
	}
	if text := readFile(t, r.path); !strings.Contains(text, "# A server that writes two lines") {
		t.Errorf("comment lost:\n%s", text)
	}
}

func TestSaveDefaults(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		name    string
		in      settings.Defaults
		wantErr string
	}{
		{name: "always and read-only", in: settings.Defaults{Approval: policy.Always, Sandbox: runtime.Sandbox{Kind: policy.ReadOnly}}},
		{name: "never with network and a root", in: settings.Defaults{Approval: policy.Never,
			Sandbox: runtime.Sandbox{Kind: policy.WorkspaceWrite, NetworkAccess: true, WritableRoots: []string{root}}}},
		{name: "relative root", in: settings.Defaults{Approval: policy.Never, Sandbox: runtime.Sandbox{WritableRoots: []string{"cache"}}}, wantErr: "absolute"},
		{name: "approval out of range", in: settings.Defaults{Approval: policy.ApprovalPolicy(9)}, wantErr: "approval"},
		{name: "sandbox out of range", in: settings.Defaults{Sandbox: runtime.Sandbox{Kind: policy.SandboxKind(7)}}, wantErr: "sandbox"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "")
			ctx := context.Background()
			old, err := r.g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.g.Settings.SaveDefaults(ctx, tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || fileOrNone(r.path) != "" {
					t.Fatalf("err = %v, want %q, nothing written (%q)", err, tc.wantErr, fileOrNone(r.path))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Defaults.Approval != tc.in.Approval || got.Defaults.Sandbox.Kind != tc.in.Sandbox.Kind ||
				got.Defaults.Sandbox.NetworkAccess != tc.in.Sandbox.NetworkAccess || len(got.Defaults.Sandbox.WritableRoots) != len(tc.in.Sandbox.WritableRoots) {
				t.Errorf("settings defaults %+v, want %+v", got.Defaults, tc.in)
			}
			s, err := r.g.Service.CreateSession(ctx, runtime.CreateSessionArgs{Workspace: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if s.Approval != tc.in.Approval || s.Sandbox.Kind != tc.in.Sandbox.Kind || s.Sandbox.NetworkAccess != tc.in.Sandbox.NetworkAccess {
				t.Errorf("new session %s %+v, want %+v", s.Approval, s.Sandbox, tc.in)
			}
			sessions, _ := r.g.Service.ListSessions(ctx)
			for _, ss := range sessions {
				if ss.ID == old.ID && (ss.Approval != policy.OnRequest || ss.Sandbox.Kind != policy.WorkspaceWrite) {
					t.Errorf("existing session changed: %+v", ss)
				}
			}
		})
	}
}

func TestBrokenFileIsReportedAndNotOverwritten(t *testing.T) {
	r := newRig(t, "")
	writeConfig(t, r.path, "[model\nspec = ")
	got, err := r.g.Settings.GetSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "saving is refused") {
		t.Errorf("warnings %q", got.Warnings)
	}
	if _, err := r.g.Settings.SaveModelSettings(context.Background(), settings.ModelArgs{Provider: "demo"}); err == nil {
		t.Fatal("saved over a broken file")
	}
	if _, err := r.g.Settings.SaveDefaults(context.Background(), settings.Defaults{}); err == nil {
		t.Fatal("saved over a broken file")
	}
	if fileOrNone(r.path) != "[model\nspec = " {
		t.Errorf("file changed: %q", fileOrNone(r.path))
	}
}
