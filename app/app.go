// Package app is the Go API the desktop window calls: a thin struct that
// Wails binds. Its methods are backend/api's window methods: api_gen.go is
// generated from that definition (scripts/apigen), and the few the window
// implements itself (native dialogs, the ready marker, Info with the build's
// version, the cage probe) are here. Every exported method of App becomes a
// JavaScript function in frontend/wailsjs, so App carries no lifecycle hooks
// and no method that runs a caller-chosen binary; a test holds its method
// set to the definition's.
package app

import (
	"context"
	"sync"
	"time"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/warden-dev/warden/backend/api"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

// Name is the product name the window shows.
const Name = "Warden"

// Options are the dependencies of App; main.go builds them.
type Options struct {
	// Version is the build's version string.
	Version string
	// ReadyFile is where FrontendReady records that the window rendered.
	// Empty disables the marker.
	ReadyFile string
	// Sandbox probes whether the OS sandbox works on this machine.
	Sandbox Prober
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Service is the agent runtime; nil leaves the window without one
	// (every API method then fails with ErrNotConnected).
	Service *runtime.Service
	// Settings serves the Settings screen; nil fails its methods like a
	// missing Service does.
	Settings *settings.Service
	// ConnectError is why the runtime could not start (a locked or damaged
	// database, a bad config file); every API method reports it.
	ConnectError error
}

// Prober reports whether the OS sandbox can run.
type Prober interface {
	Probe(ctx context.Context) SandboxStatus
}

// App is the struct bound to the window.
type App struct {
	version   string
	readyFile string
	sandbox   Prober
	now       func() time.Time
	svc       *runtime.Service
	settings  *settings.Service
	connErr   error
	wailsCtx  context.Context
	emit      emitter
	dialogs   dialogs
	dialogMu  sync.Mutex
}

// New returns an App. A nil Sandbox reports the sandbox as not probed.
func New(opts Options) *App {
	a := &App{
		version:   opts.Version,
		readyFile: opts.ReadyFile,
		sandbox:   opts.Sandbox,
		now:       opts.Now,
		svc:       opts.Service,
		settings:  opts.Settings,
		connErr:   opts.ConnectError,
		emit:      wruntime.EventsEmit,
		dialogs:   wailsDialogs(),
	}
	if a.version == "" {
		a.version = "unknown"
	}
	if a.sandbox == nil {
		a.sandbox = noProbe{}
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// Info describes the build and, when connected, the runtime (model, demo,
// cage).
func (a *App) Info() (runtime.Info, error) {
	if a.svc == nil {
		return runtime.Info{Name: Name, Version: a.version}, nil
	}
	info, err := api.Info.Call(a.ctx(), a.services(), api.None{})
	if err != nil {
		return runtime.Info{}, err
	}
	info.Name, info.Version = Name, a.version
	return info, nil
}

// SandboxStatus probes the OS sandbox now. The probe runs a fixed, harmless
// command inside bubblewrap; it never runs anything the caller chooses.
func (a *App) SandboxStatus() (SandboxStatus, error) {
	return a.sandbox.Probe(context.Background()), nil
}
