package shell

import (
	"net"
	"net/url"
	"strings"
)

// Programs that talk to the network. Hosts are read from URLs and
// [user@]host:path operands where the command line shows them.

func registerNetwork() {
	register(hCurl, "curl")
	register(hWget, "wget")
	register(hSSH, "ssh", "mosh", "autossh")
	register(hScp, "scp", "sftp")
	register(hRsync, "rsync")
	register(hNetGeneric, "ftp", "tftp", "telnet", "ping", "ping6", "traceroute", "tracepath", "mtr", "dig",
		"nslookup", "host", "whois", "drill", "kdig", "delv", "resolvectl", "avahi-resolve", "arping", "curlie", "http", "https", "xh", "httpie", "aria2c", "lynx", "w3m", "links", "elinks",
		"nmap", "ssh-keyscan", "ssh-copy-id", "gh", "glab", "hub", "aws", "gcloud", "gsutil", "az", "doctl",
		"flyctl", "heroku", "vercel", "netlify", "wrangler", "terraform", "tofu", "pulumi", "ansible",
		"ansible-playbook", "s3cmd", "rclone", "youtube-dl", "yt-dlp", "ngrok", "cloudflared", "tailscale")
	register(hNetcat, "nc", "ncat", "netcat", "socat", "openssl")
}

// hostOf reads the host of a URL, a [user@]host[:port] or host:path word.
// It returns "" for words that do not look like a host.
func hostOf(s string) string {
	if i := strings.Index(s, "://"); i > 0 {
		u, err := url.Parse(s)
		if err != nil {
			return ""
		}
		return u.Hostname()
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "~") {
		return ""
	}
	h := s
	if i := strings.IndexAny(h, "/"); i >= 0 {
		h = h[:i]
	}
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	if strings.HasPrefix(h, "[") {
		if j := strings.IndexByte(h, ']'); j > 0 {
			return h[1:j]
		}
	}
	if i := strings.IndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	if net.ParseIP(h) != nil || h == "localhost" {
		return h
	}
	if !strings.Contains(h, ".") {
		return ""
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return ""
		}
	}
	return h
}

// remoteHost reads the host of an scp/rsync operand: [user@]host:path,
// host::module or rsync://host/.
func remoteHost(s string) string {
	if strings.Contains(s, "://") {
		return hostOf(s)
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") {
		return ""
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 || strings.Contains(s[:i], "/") {
		return ""
	}
	h := s[:i]
	if j := strings.LastIndexByte(h, '@'); j >= 0 {
		h = h[j+1:]
	}
	return h
}

// curl accepts unambiguous prefixes of its long options, like getopt_long.
func hCurl(w *walker, inv *invocation) {
	opts, ops, ok := w.tableOpts(inv, "curl", inv.args)
	urls := optVals(opts, "--url")
	for _, a := range ops {
		urls = append(urls, a.val)
	}
	local := ok && len(urls) > 0
	for _, u := range urls {
		if !strings.HasPrefix(strings.ToLower(u), "file:") {
			local = false
			w.network(hostOf(u))
		}
	}
	if !local {
		// file:// URLs only are a local read; anything else (or a
		// command line the table could not follow) reaches the network.
		w.network()
	}
	for _, o := range opts {
		switch o.def.tag {
		case "connectto":
			// HOST1:PORT1:HOST2:PORT2 — the connection goes to HOST2.
			parts := strings.Split(o.val, ":")
			if len(parts) >= 3 {
				w.network(nonEmptyHost(strings.Trim(parts[2], "[]")))
			} else {
				w.network("(connect-to)")
			}
		case "resolve":
			// [+]HOST:PORT:ADDR[,ADDR]... — the connection goes to ADDR.
			parts := strings.SplitN(o.val, ":", 3)
			if len(parts) == 3 {
				for _, ad := range strings.Split(parts[2], ",") {
					w.network(nonEmptyHost(strings.Trim(ad, "[]")))
				}
			} else {
				w.network("(resolve)")
			}
		case "unixsocket":
			// A host socket (a container daemon, a database) is not loopback.
			w.network("unix:" + o.val)
		case "remotename":
			dir := "."
			if d := tagged(opts, "outdir"); len(d) > 0 {
				dir = d[0].val
			}
			name := dir
			if len(urls) > 0 && !strings.Contains(o.def.canonical(), "header") {
				name = dir + "/" + urlFileName(urls[len(urls)-1])
			} else {
				w.res.Unresolved = true
				w.unknown("curl " + o.as + ": the file name comes from the server")
			}
			w.writeTo(inv.sc, arg{val: name, static: true}, "curl "+o.as)
		case "upload":
			// -T reads a local file and sends it.
		case "writeout":
			if strings.Contains(o.val, "%output") || strings.HasPrefix(o.val, "@") {
				w.unknown("curl --write-out can write files or read a format file")
			}
		}
	}
}

func nonEmptyHost(h string) string {
	if h == "" {
		return "(unnamed host)"
	}
	return h
}

func urlFileName(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '/'); i >= 0 && !strings.HasSuffix(u[:i], ":/") {
		u = u[i+1:]
	} else {
		return "index.html"
	}
	if u == "" {
		return "index.html"
	}
	return u
}

func hWget(w *walker, inv *invocation) {
	w.network()
	if w.refuseDynamic(inv) {
		return
	}
	opts, ops := parseOpts(inv.args, optSpec{short: "OoaPiBeDtTUwQlAR", long: []string{
		"output-document", "output-file", "append-output", "directory-prefix", "input-file", "base", "execute",
		"domains", "tries", "timeout", "user-agent", "wait", "quota", "level", "accept", "reject", "header",
		"post-data", "post-file", "user", "password", "load-cookies", "save-cookies", "ca-certificate"}})
	for _, a := range ops {
		w.network(hostOf(a.val))
	}
	if has(opts, "-e", "--execute", "-i", "--input-file") {
		w.unknown("wget --execute / --input-file: commands or URLs from elsewhere")
	}
	for _, o := range opts {
		switch o.name {
		case "-o", "--output-file", "-a", "--append-output", "--save-cookies":
			w.writeTo(inv.sc, arg{val: o.val, static: true}, "wget "+o.name)
		}
	}
	docs := values(opts, "-O", "--output-document")
	switch {
	case len(docs) > 0:
		if docs[0] != "-" {
			w.writeTo(inv.sc, arg{val: docs[0], static: true}, "wget -O")
		}
	default:
		dir := "."
		if d := values(opts, "-P", "--directory-prefix"); len(d) > 0 {
			dir = d[0]
		}
		if has(opts, "-r", "--recursive", "-m", "--mirror") || len(ops) == 0 {
			w.writeTo(inv.sc, arg{val: dir, static: true}, "wget")
			return
		}
		for _, a := range ops {
			w.writeTo(inv.sc, arg{val: dir + "/" + urlFileName(a.val), static: true}, "wget")
		}
	}
}

func hScp(w *walker, inv *invocation) {
	w.network()
	if w.refuseDynamic(inv) {
		return
	}
	opts, ops := parseOpts(inv.args, optSpec{short: "cFiJlopPSDX"})
	for _, o := range opts {
		switch o.name {
		case "-F", "-S":
			w.unknown(inv.name + " " + o.name + " runs a program or reads another config")
		case "-J":
			w.network(sshHops([]popt{{def: &optDef{tag: "jump"}, val: o.val}})...)
		case "-o":
			p := popt{def: &optDef{tag: "sshopt"}, val: o.val}
			if sshOptionRunsCode([]popt{p}) {
				w.unknown(inv.name + " -o " + o.val + " runs a local command or reads another config")
			}
			w.network(sshHops([]popt{p})...)
		}
	}
	for _, a := range ops {
		w.network(remoteHost(a.val))
	}
	if inv.name == "scp" && len(ops) >= 2 {
		if last := ops[len(ops)-1]; remoteHost(last.val) == "" {
			w.writeTo(inv.sc, last, "scp destination")
		}
	}
}

func hRsync(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "rsync", inv.args)
	for _, a := range ops {
		if h := remoteHost(a.val); h != "" {
			w.network(h)
		}
	}
	for _, o := range tagged(opts, "rsh") {
		f := strings.Fields(o.val)
		if len(f) == 0 || f[0] != "ssh" {
			w.unknown("rsync -e runs another program")
			continue
		}
		sub := &walker{}
		_, _, _, _, sopts, bad := sshTarget(staticArgs(append(f[1:], "host")...))
		if bad != "" || sshOptionRunsCode(sopts) {
			w.unknown("rsync -e: the ssh options run a command or read another config")
		}
		w.network(sshHops(sopts)...)
		_ = sub
	}
	if len(ops) >= 2 {
		if last := ops[len(ops)-1]; remoteHost(last.val) == "" {
			w.writeTo(inv.sc, last, "rsync destination")
		}
	}
}

// hGetent: the hosts, networks and services databases are resolved through
// DNS or NIS, which is network; the local files databases are reads.
func hGetent(w *walker, inv *invocation) {
	_, ops := parseOpts(inv.args, optSpec{short: "s", long: []string{"service"}})
	switch first(ops) {
	case "hosts", "ahosts", "ahostsv4", "ahostsv6", "networks", "netgroup", "rpc", "services", "protocols", "ethers", "initgroups":
		w.network(argValsAll(ops[1:])...)
		if len(ops) < 2 {
			w.network("(name service)")
		}
	case "passwd", "group", "shadow", "gshadow", "aliases":
	default:
		w.network("(name service)")
	}
}

func argValsAll(args []arg) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		out = append(out, a.val)
	}
	return out
}

// hSs: ss -K kills the sockets it lists.
func hSs(w *walker, inv *invocation) {
	for _, a := range inv.args {
		if a.val == "--kill" || strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, "K") {
			w.destroy("ss -K: closes sockets")
		}
	}
}

func hNetGeneric(w *walker, inv *invocation) {
	w.network()
	for _, a := range inv.args {
		if a.static {
			w.network(hostOf(a.val))
		}
	}
	for _, a := range inv.args {
		if a.static && strings.Contains(a.val, "delete") || a.val == "destroy" || a.val == "rm" {
			w.destroy(inv.name + " " + a.val + ": deletes remote resources")
			return
		}
	}
	switch inv.name {
	case "gh", "glab", "hub", "aws", "gcloud", "gsutil", "az", "doctl", "flyctl", "heroku", "vercel", "netlify",
		"wrangler", "terraform", "tofu", "pulumi", "ansible", "ansible-playbook", "rclone", "s3cmd", "ngrok",
		"cloudflared", "tailscale", "youtube-dl", "yt-dlp", "aria2c":
		// These also write local files or run local hooks.
		w.unknown(inv.name + " acts on remote services and local files")
	}
}

func hNetcat(w *walker, inv *invocation) {
	w.network()
	for _, a := range inv.args {
		if !a.static {
			continue
		}
		w.network(hostOf(a.val))
		if a.val == "-e" || a.val == "-c" || strings.Contains(strings.ToUpper(a.val), "EXEC:") || strings.Contains(strings.ToUpper(a.val), "SYSTEM:") {
			w.unknown(inv.name + " runs a program for the connection")
		}
	}
	if inv.name == "socat" || inv.name == "openssl" {
		w.unknown(inv.name + " can read and write local files")
	}
}
