// Command warden-desktop is the Warden desktop app: a Wails window around the
// same Go API the headless CLI uses. This file only wires; behaviour lives in
// app/ and backend/. Wails itself turns SIGINT and SIGTERM into an orderly
// quit, so `kill <pid>` closes the window and exits 0.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"github.com/warden-dev/warden/app"
	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/desktop"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// icon is the window icon; build/appicon.svg is its source.
//
//go:embed build/appicon.png
var icon []byte

// readyFileEnv names the file the app writes once the frontend has mounted;
// the desktop smoke test sets it.
const readyFileEnv = "WARDEN_READY_FILE"

// releaseDelay is how long after the page is loaded the startup-only
// pages of the executable are released (desktop.ReleaseStartupPages).
const releaseDelay = 5 * time.Second

func main() {
	files, err := assets()
	if err != nil {
		fmt.Fprintln(os.Stderr, "warden-desktop: frontend assets:", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := app.Options{Version: version, ReadyFile: os.Getenv(readyFileEnv)}
	graph, err := assemble.Open(ctx, assemble.Options{Version: version, Forwarder: desktop.CageForwarder()})
	if err != nil {
		// The window still opens and says why nothing works, rather than
		// vanishing with a message on a terminal the user may not have.
		fmt.Fprintln(os.Stderr, "warden-desktop:", err)
		opts.ConnectError = err
		opts.Sandbox = app.CageProbe(func(ctx context.Context) sandbox.Status {
			return assemble.ProbeCage(ctx, assemble.Options{})
		})
	} else {
		defer graph.Close()
		opts.Service = graph.Service
		opts.Settings = graph.Settings
		// The indicator re-runs the probe of the cage the engine relies on.
		opts.Sandbox = app.CageProbe(graph.Cage.Detect)
	}
	a := app.New(opts)
	gpu, err := desktop.ApplyWebviewSettings()
	if err != nil {
		// Only memory is at stake; the window works either way.
		fmt.Fprintln(os.Stderr, "warden-desktop: webview settings:", err)
	}
	err = wails.Run(&options.App{
		Title:            app.Name,
		Width:            1180,
		Height:           760,
		MinWidth:         720,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 0x1b, G: 0x1e, B: 0x24, A: 0xff},
		AssetServer:      &assetserver.Options{Assets: files},
		Bind:             []interface{}{a},
		OnStartup:        func(ctx context.Context) { app.Attach(ctx, a) },
		OnDomReady: func(context.Context) {
			// Give the frontend time to load its first data, then hand the
			// startup-only pages of the executable back.
			time.AfterFunc(releaseDelay, func() {
				if err := desktop.ReleaseStartupPages(); err != nil {
					fmt.Fprintln(os.Stderr, "warden-desktop: release startup pages:", err)
				}
			})
		},
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "warden",
			WebviewGpuPolicy: gpu,
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "warden-desktop:", err)
		cancel()
		os.Exit(1)
	}
}
