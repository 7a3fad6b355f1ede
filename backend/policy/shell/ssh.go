package shell

import (
	"net/url"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ssh: the destination, jump hosts and options that run local commands;
// the remote command is classified in its own walker.

// sshTarget parses ssh's command line: options, destination, command.
func sshTarget(args []arg) (user, host, port string, cmd []arg, opts []popt, bad string) {
	port = "22"
	opts, ops, bad := tableFor("ssh").parse(args)
	for _, o := range opts {
		switch o.def.tag {
		case "port":
			port = o.val
		case "user":
			user = o.val
		case "sshopt":
			k, v := sshOption(o.val)
			switch k {
			case "port":
				port = v
			case "user":
				user = v
			case "hostname":
				host = v
			}
		}
	}
	if len(ops) > 0 {
		dest := ops[0].val
		dhost := dest
		if strings.HasPrefix(dest, "ssh://") {
			if u, err := url.Parse(dest); err == nil {
				dhost = u.Hostname()
				if u.Port() != "" {
					port = u.Port()
				}
				if u.User != nil {
					user = u.User.Username()
				}
			}
		} else if j := strings.LastIndexByte(dest, '@'); j >= 0 {
			user, dhost = dest[:j], dest[j+1:]
		}
		if host == "" {
			host = dhost
		}
		cmd = ops[1:]
	}
	return user, host, port, cmd, opts, bad
}

// sshOption splits -o Key=Value or -o "Key Value", lower-casing the key.
func sshOption(s string) (string, string) {
	k, v, _ := strings.Cut(strings.Replace(strings.TrimSpace(s), " ", "=", 1), "=")
	return strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
}

// sshHops are the jump hosts of -J and -o ProxyJump.
func sshHops(opts []popt) []string {
	var hosts []string
	add := func(list string) {
		for _, h := range strings.Split(list, ",") {
			if j := strings.LastIndexByte(h, '@'); j >= 0 {
				h = h[j+1:]
			}
			if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h, "]") {
				h = h[:i]
			}
			if h = strings.Trim(h, "[]"); h != "" && h != "none" {
				hosts = append(hosts, h)
			}
		}
	}
	for _, o := range opts {
		switch o.def.tag {
		case "jump":
			add(o.val)
		case "sshopt":
			if k, v := sshOption(o.val); k == "proxyjump" {
				add(v)
			}
		}
	}
	return hosts
}

func sshOptionRunsCode(opts []popt) bool {
	for _, o := range opts {
		if o.def.tag == "unknown" {
			return true
		}
		if o.def.tag == "sshopt" {
			k, _ := sshOption(o.val)
			switch k {
			case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match", "include",
				"controlpath", "controlmaster", "remotecommand", "identityagent", "pkcs11provider", "securitykeyprovider",
				"sendenv", "setenv", "identityfile", "certificatefile", "userknownhostsfile", "globalknownhostsfile",
				"xauthlocation", "forwardx11", "forwardagent":
				return true
			}
		}
	}
	return false
}

// hSSH: ssh reaches the destination and every jump host, and the remote
// command is classified too: destroying files there is destroying files.
func hSSH(w *walker, inv *invocation) {
	w.network()
	user, host, _, cmd, opts, bad := sshTarget(inv.args)
	_ = user
	if bad != "" {
		w.unknown(inv.name + ": " + bad)
	}
	w.network(host)
	w.network(sshHops(opts)...)
	if sshOptionRunsCode(opts) {
		w.unknown(inv.name + " option runs a local command or reads another config")
	}
	for _, o := range opts {
		if o.def.tag == "write" {
			w.writeTo(inv.sc, arg{val: o.val, static: !o.dynamic}, inv.name+" "+o.as)
		}
	}
	if len(cmd) > 0 {
		w.remote(host, cmd)
	}
}

// remote classifies a command that runs on another machine. Its writes are
// not local writes; what it destroys or cannot prove carries over, named
// with the host.
func (w *walker) remote(host string, cmd []arg) {
	parts := make([]string, len(cmd))
	for i, a := range cmd {
		if !a.static {
			w.unknown("the remote command is computed at run time")
			return
		}
		parts[i] = a.val
	}
	if w.depth >= maxDepth {
		w.unknown("commands nested too deeply")
		return
	}
	// ssh hands its own stdin to the remote command.
	sub := &walker{depth: w.depth + 1, stdin: w.stdin}
	sub.script(strings.Join(parts, " "), &scope{}, syntax.LangBash)
	r := sub.finish()
	for _, d := range r.Destructive {
		w.destroy("on " + host + ": " + d)
	}
	for _, u := range r.Unknown {
		if !strings.Contains(u, "relative to an unknown directory") {
			w.unknown("on " + host + ": " + u)
		}
	}
	if r.Network {
		w.network(r.Hosts...)
	}
}
