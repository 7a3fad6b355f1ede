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
		"nslookup", "host", "whois", "http", "https", "xh", "httpie", "aria2c", "lynx", "w3m", "links", "elinks",
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

var curlSpec = optSpec{short: "AbcCdDeEFHKmoQrTuUwXxYyztP", long: []string{
	"output", "url", "data", "data-raw", "data-binary", "data-urlencode", "data-ascii", "header", "user-agent",
	"referer", "cookie", "cookie-jar", "request", "user", "proxy", "form", "form-string", "upload-file", "config",
	"max-time", "connect-timeout", "retry", "retry-delay", "retry-max-time", "dump-header", "cacert", "capath",
	"cert", "key", "write-out", "range", "trace", "trace-ascii", "stderr", "libcurl", "resolve", "connect-to",
	"interface", "limit-rate", "output-dir", "json", "oauth2-bearer", "unix-socket", "abstract-unix-socket",
	"proxy-user", "max-filesize", "etag-save", "etag-compare", "hsts", "alt-svc", "time-cond", "quote",
	"continue-at", "aws-sigv4", "cert-type", "key-type", "pass", "variable", "expand-url", "dns-servers"}}

func hCurl(w *walker, inv *invocation) {
	if w.refuseDynamic(inv) {
		w.network()
		return
	}
	opts, ops := parseOpts(inv.args, curlSpec)
	urls := values(opts, "--url")
	for _, a := range ops {
		urls = append(urls, a.val)
	}
	local := true
	for _, u := range urls {
		if !strings.HasPrefix(strings.ToLower(u), "file:") {
			local = false
			w.network(hostOf(u))
		}
	}
	if local && len(urls) > 0 {
		// file:// only: a local read.
	} else {
		w.network()
	}
	if has(opts, "-K", "--config") {
		w.unknown("curl --config reads more options from a file")
	}
	for _, o := range opts {
		switch o.name {
		case "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
			"--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc":
			if o.val != "-" && o.val != "%" {
				w.writeTo(inv.sc, arg{val: o.val, static: true}, "curl "+o.name)
			}
		case "-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name":
			dir := "."
			if d := values(opts, "--output-dir"); len(d) > 0 {
				dir = d[0]
			}
			name := dir
			if len(urls) > 0 && o.name != "-J" && o.name != "--remote-header-name" {
				name = dir + "/" + urlFileName(urls[len(urls)-1])
			}
			w.writeTo(inv.sc, arg{val: name, static: true}, "curl "+o.name)
		}
	}
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

var sshSpec = optSpec{short: "BbcDEeFIiJLlmOopQRSWw", long: nil}

// sshTarget parses ssh's command line: options, destination, command.
func sshTarget(args []arg) (user, host, port string, cmd []string, opts []opt) {
	port = "22"
	i := 0
	for i < len(args) {
		v := args[i].val
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		o, _ := parseOpts(args[i:i+1], sshSpec)
		if len(o) > 0 && o[len(o)-1].val == "" && strings.IndexByte(sshSpec.short, o[len(o)-1].name[1]) >= 0 && i+1 < len(args) {
			i++
			o[len(o)-1].val = args[i].val
		}
		opts = append(opts, o...)
		i++
	}
	for _, o := range opts {
		switch o.name {
		case "-p":
			port = o.val
		case "-l":
			user = o.val
		case "-o":
			k, v, _ := strings.Cut(strings.Replace(o.val, " ", "=", 1), "=")
			switch strings.ToLower(k) {
			case "port":
				port = v
			case "user":
				user = v
			}
		}
	}
	if i < len(args) {
		dest := args[i].val
		if strings.HasPrefix(dest, "ssh://") {
			if u, err := url.Parse(dest); err == nil {
				host = u.Hostname()
				if u.Port() != "" {
					port = u.Port()
				}
				if u.User != nil {
					user = u.User.Username()
				}
			}
		} else {
			if j := strings.LastIndexByte(dest, '@'); j >= 0 {
				user, dest = dest[:j], dest[j+1:]
			}
			host = dest
		}
		for _, a := range args[i+1:] {
			cmd = append(cmd, a.val)
		}
	}
	return user, host, port, cmd, opts
}

func sshOptionRunsCode(opts []opt) bool {
	for _, o := range opts {
		switch o.name {
		case "-F", "-S":
			return true
		case "-o":
			k, _, _ := strings.Cut(strings.Replace(o.val, " ", "=", 1), "=")
			switch strings.ToLower(k) {
			case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match", "include",
				"controlpath", "controlmaster", "remotecommand", "identityagent", "pkcs11provider", "securitykeyprovider":
				return true
			}
		}
	}
	return false
}

func hSSH(w *walker, inv *invocation) {
	w.network()
	if w.refuseDynamic(inv) {
		return
	}
	_, host, _, _, opts := sshTarget(inv.args)
	w.network(host)
	if sshOptionRunsCode(opts) {
		w.unknown(inv.name + " option runs a local command or reads another config")
	}
}

func hScp(w *walker, inv *invocation) {
	w.network()
	if w.refuseDynamic(inv) {
		return
	}
	opts, ops := parseOpts(inv.args, optSpec{short: "cFiJlopPSDX"})
	if sshOptionRunsCode(opts) {
		w.unknown(inv.name + " option runs a local command or reads another config")
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
	if w.refuseDynamic(inv) {
		return
	}
	opts, ops := parseOpts(inv.args, optSpec{short: "efBTM", long: []string{"rsh", "rsync-path", "filter",
		"exclude", "include", "exclude-from", "include-from", "files-from", "temp-dir", "partial-dir",
		"backup-dir", "suffix", "chmod", "chown", "log-file", "password-file", "port", "timeout", "bwlimit",
		"compare-dest", "copy-dest", "link-dest", "max-size", "min-size", "info", "debug", "out-format"}})
	remote := false
	for _, a := range ops {
		if h := remoteHost(a.val); h != "" {
			remote = true
			w.network(h)
		}
	}
	for _, o := range opts {
		if o.name == "-e" || o.name == "--rsh" {
			if f := strings.Fields(o.val); len(f) == 0 || f[0] != "ssh" || strings.Contains(o.val, "roxy") {
				w.unknown("rsync -e runs another program")
			}
		}
		if strings.HasPrefix(o.name, "--delete") || o.name == "--remove-source-files" {
			w.destroy("rsync " + o.name + ": removes files")
		}
	}
	_ = remote
	if len(ops) >= 2 {
		if last := ops[len(ops)-1]; remoteHost(last.val) == "" {
			w.writeTo(inv.sc, last, "rsync destination")
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
