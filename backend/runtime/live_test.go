package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/runtime/model/anthropic"
	"github.com/warden-dev/warden/backend/runtime/model/script"
	"github.com/warden-dev/warden/backend/store"
)

func TestSetModelChangesInfo(t *testing.T) {
	demo, err := script.NewDemo(script.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		prov      model.Provider
		demo      bool
		wantModel string
		wantDemo  bool
		wantErr   error // of SendMessage with a chat line
	}{
		{name: "anthropic", prov: anthropicProvider(t, "http://127.0.0.1:9"), wantModel: "anthropic:claude-sonnet-4-5"},
		{name: "demo", prov: demo, demo: true, wantModel: "script:demo", wantDemo: true},
		{name: "none", prov: nil, wantModel: "", wantErr: ErrNoModel},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, demo, func(c *rigConfig) { c.Demo = true })
			before, _ := r.svc.Info(context.Background())
			if before.Model != "script:demo" || !before.Demo {
				t.Fatalf("before: %+v", before)
			}
			r.svc.SetModel(tc.prov, tc.demo)
			after, _ := r.svc.Info(context.Background())
			if after.Model != tc.wantModel || after.Demo != tc.wantDemo {
				t.Errorf("after: model %q demo %v, want %q %v", after.Model, after.Demo, tc.wantModel, tc.wantDemo)
			}
			if tc.wantErr != nil {
				s := r.session(nil)
				if err := r.svc.SendMessage(context.Background(), s.ID, "hello"); !errors.Is(err, tc.wantErr) {
					t.Errorf("SendMessage: %v, want %v", err, tc.wantErr)
				}
			}
		})
	}
}

func TestSetDefaultsAppliesToNewSessionsOnly(t *testing.T) {
	r := newRig(t, nil, func(c *rigConfig) {
		c.Approval, c.Sandbox = policy.OnRequest, policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	})
	old := r.session(nil)
	r.svc.SetDefaults(policy.Always, policy.SandboxPolicy{Kind: policy.ReadOnly, NetworkAccess: true})
	fresh := r.session(nil)
	if fresh.Approval != policy.Always || fresh.Sandbox.Kind != policy.ReadOnly || !fresh.Sandbox.NetworkAccess {
		t.Errorf("new session: %s %+v", fresh.Approval, fresh.Sandbox)
	}
	again, err := r.st.Session(context.Background(), old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.Approval != policy.OnRequest || again.Sandbox.Kind != policy.WorkspaceWrite {
		t.Errorf("existing session changed: %s %+v", again.Approval, again.Sandbox)
	}
}

// A turn keeps the model it started with; the next turn uses the new one.
func TestRunningTurnFinishesOnTheOldModel(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "e2e", "5_done.sse"))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	arrived := make(chan struct{}, 4)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		once.Do(func() { <-release })
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range splitSSE(data) {
			_, _ = w.Write(chunk)
		}
	}))
	t.Cleanup(srv.Close)
	other, err := anthropic.New(anthropic.Config{Model: "claude-other", APIKey: "sk-ant-test", BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	s := r.session(nil)
	ctx := context.Background()
	if err := r.svc.SendMessage(ctx, s.ID, "first"); err != nil {
		t.Fatal(err)
	}
	<-arrived
	r.svc.SetModel(other, false)
	close(release)
	r.waitIdle(s.ID)
	if err := r.svc.SendMessage(ctx, s.ID, "second"); err != nil {
		t.Fatal(err)
	}
	<-arrived
	r.waitIdle(s.ID)
	var models []string
	for _, e := range r.events(s.ID, store.KindMessageAppended) {
		var m store.MessageAppended
		if err := json.Unmarshal(e.Payload, &m); err != nil {
			t.Fatal(err)
		}
		if m.Role == "assistant" {
			models = append(models, m.Model)
		}
	}
	want := []string{"anthropic:claude-sonnet-4-5", "anthropic:claude-other"}
	if len(models) != 2 || models[0] != want[0] || models[1] != want[1] {
		t.Errorf("assistant models %v, want %v", models, want)
	}
}
