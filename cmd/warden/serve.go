package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/warden-dev/warden/backend/assemble"
	"github.com/warden-dev/warden/backend/server"
)

func serveCommand() command {
	return command{name: "serve", summary: "serve the Warden UI and API to a local browser", run: serveMain}
}

func serveMain(ctx context.Context, args []string, io stdio) int {
	fset := flag.NewFlagSet("warden serve", flag.ContinueOnError)
	fset.SetOutput(io.err)
	addr := fset.String("addr", "127.0.0.1:0", "listen address (loopback only unless --insecure-bind)")
	insecure := fset.Bool("insecure-bind", false, "allow a non-loopback listen address (the sign-in code and session cookie are then the only lock)")
	db := fset.String("db", "", "the database (default $WARDEN_DB, else $XDG_DATA_HOME/warden/warden.db)")
	static := fset.String("static", "", "the built frontend folder (default frontend/dist, else the installed copy, ../share/warden/frontend beside this binary)")
	modelSpec := fset.String("model", "", "PROVIDER:MODEL, script:FILE or demo (default: the built-in demo)")
	baseURL := fset.String("base-url", "", "base URL of the model API")
	remoteAddr := fset.String("remote-addr", "", "also serve the links that answer an ask from another device on this address (host:port; default [remote] address, else this server)")
	approval := fset.String("approval", "", "default approval policy of new sessions (default: config.toml, else on-request)")
	sandboxKind := fset.String("sandbox", "", "default sandbox of new sessions (default: config.toml, else workspace-write)")
	network := fset.Bool("network", false, "new sessions' workspace-write sandbox may use the network")
	var allowHosts hostFlag
	registerAllowHost(fset, &allowHosts)
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(io.err, "warden serve: unexpected argument %q\n", fset.Arg(0))
		return 2
	}
	ax, err := parseAxes(*approval, *sandboxKind, *network)
	if err != nil {
		fmt.Fprintln(io.err, "warden serve:", err)
		return 2
	}
	ln, err := server.Listen(*addr, *insecure)
	if err != nil {
		fmt.Fprintln(io.err, "warden serve:", err)
		return 2
	}
	defer ln.Close()
	g, err := assemble.Open(ctx, assemble.Options{DBPath: *db, Model: *modelSpec, BaseURL: *baseURL,
		Approval: ax.approval, Sandbox: ax.sandbox, Version: version, AllowHosts: allowHosts})
	if err != nil {
		fmt.Fprintln(io.err, "warden serve:", err)
		var me *assemble.ModelError
		if errors.As(err, &me) {
			return 2
		}
		return 1
	}
	defer g.Close()
	token, err := server.NewToken()
	if err != nil {
		fmt.Fprintln(io.err, "warden serve:", err)
		return 1
	}
	opts := server.Options{Service: g.Service, Settings: g.Settings, Token: token, Remote: g.Remote.Links.Handler()}
	if st, hint := staticDir(staticDefault(*static)); st != nil {
		opts.Static = st
	} else {
		opts.StaticHint = hint
		fmt.Fprintln(io.err, "warden serve:", hint)
	}
	if *insecure {
		opts.Hosts = append(opts.Hosts, ln.Addr().String())
	}
	srv, err := server.New(opts)
	if err != nil {
		fmt.Fprintln(io.err, "warden serve:", err)
		return 1
	}
	if info, err := g.Service.Info(ctx); err == nil && info.Demo {
		fmt.Fprintln(io.err, "warden serve: no model configured: running the built-in DEMO script (use --model PROVIDER:MODEL)")
	}
	if *remoteAddr != "" {
		g.Remote.Addr = *remoteAddr
	}
	if g.Remote.Addr != "" {
		base, err := g.Remote.Listen()
		if err != nil {
			fmt.Fprintln(io.err, "warden serve:", err)
			return 1
		}
		fmt.Fprintln(io.err, "warden serve: links that answer an ask from another device are served at "+base+"/remote/")
	} else {
		g.Remote.SetBase(srv.Base(ln))
	}
	fmt.Fprintln(io.out, srv.URL(ln))
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintln(io.err, "warden serve:", err)
		return 1
	}
	return 0
}

// staticDefault is the --static folder: the flag, else a source tree's
// frontend/dist in the working directory, else the packaged copy beside
// the installed binary (/usr/bin/warden -> /usr/share/warden/frontend).
func staticDefault(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	const dev = "frontend/dist"
	if _, err := os.Stat(filepath.Join(dev, "index.html")); err == nil {
		return dev
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		installed := filepath.Join(filepath.Dir(exe), "..", "share", "warden", "frontend")
		if _, err := os.Stat(filepath.Join(installed, "index.html")); err == nil {
			return installed
		}
	}
	return dev
}

// staticDir opens the built frontend, or says why it cannot.
func staticDir(dir string) (fs.FS, string) {
	index := filepath.Join(dir, "index.html")
	if _, err := os.Stat(index); err != nil {
		return nil, fmt.Sprintf("no built frontend at %s (run `make` to build frontend/dist, or pass --static DIR); serving the API only", dir)
	}
	return os.DirFS(dir), ""
}
