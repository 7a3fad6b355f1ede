//go:build !wardenslim

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

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
	static := fset.String("static", "", "the built frontend folder (default $WARDEN_STATIC, else the installed copy: ../share/warden/frontend beside this binary, /usr/share/warden/frontend; never the working directory)")
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
	st, _, hint, err := staticAssets(*static, func() []string { return g.WritableRoots(ctx) })
	if err != nil {
		fmt.Fprintln(io.err, "warden serve:", err)
		return 2
	}
	if st != nil {
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
