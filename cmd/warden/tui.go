//go:build !wardenslim

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/tui"
)

func tuiCommand() command {
	return command{name: "tui", summary: "the terminal UI: chat, permission prompts, both axes", run: tuiMain}
}

type tuiFlags struct {
	runFlags
	session string
	newSess bool
}

func tuiMain(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("warden tui", flag.ContinueOnError)
	fs.SetOutput(io.err)
	var f tuiFlags
	fs.StringVar(&f.model, "model", "", "PROVIDER:MODEL (anthropic, openai), script:FILE, or demo (default: config.toml, else the demo)")
	fs.StringVar(&f.baseURL, "base-url", "", "base URL of the model API (an OpenAI-compatible server: Ollama, vLLM, ...)")
	fs.StringVar(&f.approval, "approval", "", "approval policy of a new session: never, on-request, always (default: config.toml, else on-request)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox of a new session: read-only, workspace-write, danger-full-access (default: config.toml, else workspace-write)")
	fs.BoolVar(&f.network, "network", false, "let a new session's workspace-write sandbox use the network")
	fs.StringVar(&f.workspace, "workspace", ".", "the workspace directory")
	fs.StringVar(&f.db, "db", "", dbUsage)
	fs.StringVar(&f.session, "session", "", "resume this session `id` (default: the newest session of the workspace)")
	fs.BoolVar(&f.newSess, "new", false, "start a new session instead of resuming the workspace's newest")
	registerAllowHost(fs, &f.allowHosts)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "Usage: warden tui [flags]   (resumes the workspace's newest session, or starts one)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "warden tui: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	ax, err := parseAxes(f.approval, f.sandbox, f.network)
	if err != nil {
		fmt.Fprintln(io.err, "warden tui:", err)
		return 2
	}
	ws, err := runtime.ResolveWorkspace(f.workspace)
	if err != nil {
		fmt.Fprintln(io.err, "warden tui:", err)
		return 2
	}
	// The first frame goes up before the store, the engine and the cage
	// open (that takes most of the start): it shows what is being opened and
	// the axes a new session gets; the model opens the rest in the
	// background and shows the session when it is there.
	opts := assemble.Options{DBPath: f.db, Workspace: ws, Model: f.model, BaseURL: f.baseURL,
		Approval: ax.approval, Sandbox: ax.sandbox, Version: version, AllowHosts: f.allowHosts}
	pv, err := assemble.PreviewOf(opts)
	if err != nil {
		fmt.Fprintln(io.err, "warden tui:", err)
		return 1
	}
	open := func(ctx context.Context) (tui.Opened, error) {
		g, err := assemble.Open(ctx, opts)
		if err != nil {
			return tui.Opened{}, err
		}
		id, err := tuiSession(ctx, g.Service, ws, f.session, f.newSess, ax)
		if err != nil {
			g.Close()
			return tui.Opened{}, err
		}
		return tui.Opened{Service: g.Service, SessionID: id, Close: func() { g.Close() }}, nil
	}
	m, err := tui.New(ctx, tui.Options{Open: open, Starting: tui.Starting{DBPath: pv.DBPath, Workspace: ws,
		Approval: pv.Approval, Sandbox: runtime.Sandbox{Kind: pv.Sandbox.Kind, NetworkAccess: pv.Sandbox.NetworkAccess}}})
	if err != nil {
		fmt.Fprintln(io.err, "warden tui:", err)
		return 1
	}
	if err := tui.Run(ctx, m); err != nil {
		fmt.Fprintln(io.err, "warden tui:", err)
		var me *assemble.ModelError
		if errors.As(err, &me) {
			return 2
		}
		return 1
	}
	if id := m.Session().ID; id != "" {
		fmt.Fprintf(io.out, "warden tui: session %s (resume with --session %s)\n", id, id)
	}
	return 0
}

// tuiSession picks the session to open: the one named, else the newest of
// the workspace, else a new one. The axis flags apply to a new session; a
// resumed one keeps its own axes (the status bar shows them), as in the
// window.
func tuiSession(ctx context.Context, svc *runtime.Service, ws, id string, fresh bool, ax axes) (string, error) {
	if id != "" {
		s, err := svc.GetSession(ctx, id)
		if err != nil {
			return "", fmt.Errorf("--session %s: %w", id, err)
		}
		return s.ID, nil
	}
	if !fresh {
		list, err := svc.ListSessions(ctx)
		if err != nil {
			return "", err
		}
		for _, s := range list { // most recently updated first
			if s.Workspace == ws && !s.Archived {
				return s.ID, nil
			}
		}
	}
	args := runtime.CreateSessionArgs{Workspace: ws, Title: "terminal " + time.Now().Format("2006-01-02 15:04")}
	args.Approval = ax.approval
	if ax.sandbox != nil {
		sb := runtime.Sandbox{Kind: ax.sandbox.Kind, NetworkAccess: ax.sandbox.NetworkAccess}
		args.Sandbox = &sb
	}
	s, err := svc.CreateSession(ctx, args)
	if err != nil {
		return "", err
	}
	return s.ID, nil
}
