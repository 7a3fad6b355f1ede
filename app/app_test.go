package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixedProbe returns a known status, so App's wiring is tested apart from bwrap.
type fixedProbe SandboxStatus

func (f fixedProbe) Probe(context.Context) SandboxStatus { return SandboxStatus(f) }

func TestInfo(t *testing.T) {
	cases := []struct {
		name, version, want string
	}{
		{"set version", "1.2.3", "1.2.3"},
		{"empty version says unknown", "", "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := New(Options{Version: tc.version}).Info()
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != "Warden" || got.Version != tc.want {
				t.Errorf("Info() = %+v, want {Warden %s}", got, tc.want)
			}
		})
	}
}

func TestSandboxStatusUsesProber(t *testing.T) {
	want := SandboxStatus{Available: false, Mechanism: "bubblewrap", Detail: "denied"}
	got, _ := New(Options{Sandbox: fixedProbe(want)}).SandboxStatus()
	if got != want {
		t.Errorf("SandboxStatus() = %+v, want %+v", got, want)
	}
}

func TestFrontendReady(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return at }

	t.Run("writes the marker", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ready.json")
		a := New(Options{Version: "9.9.9", ReadyFile: path, Now: clock})
		if err := a.FrontendReady(); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m ReadyMarker
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("marker %q is not JSON: %v", raw, err)
		}
		want := ReadyMarker{PID: os.Getpid(), Version: "9.9.9", At: at}
		if m != want {
			t.Errorf("marker = %+v, want %+v", m, want)
		}
	})

	t.Run("second call overwrites and leaves no temp files", func(t *testing.T) {
		dir := t.TempDir()
		a := New(Options{ReadyFile: filepath.Join(dir, "ready.json"), Now: clock})
		for i := 0; i < 2; i++ {
			if err := a.FrontendReady(); err != nil {
				t.Fatal(err)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 {
			t.Errorf("dir holds %d entries, want only the marker", len(entries))
		}
	})

	t.Run("no ready file configured writes nothing", func(t *testing.T) {
		if err := New(Options{}).FrontendReady(); err != nil {
			t.Errorf("FrontendReady() = %v, want nil", err)
		}
	})

	t.Run("unwritable directory is an error", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "missing-dir", "ready.json")
		if err := New(Options{ReadyFile: path}).FrontendReady(); err == nil {
			t.Error("FrontendReady() = nil, want an error for a missing directory")
		}
	})
}
