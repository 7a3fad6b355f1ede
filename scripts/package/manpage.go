package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// helpOf runs the built CLI with args and returns what it printed (help
// goes to stdout or stderr depending on the command; the exit status of a
// help request is not an error here).
func helpOf(ctx context.Context, cli string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	out, err := cmd.CombinedOutput()
	if len(bytes.TrimSpace(out)) == 0 {
		return "", fmt.Errorf("%s %s printed nothing: %v", cli, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// commandsOf reads the command names from the "Commands:" block of the
// top-level help: indented lines "  name   summary" up to a blank line.
func commandsOf(help string) []string {
	var names []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(help))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "Commands:":
			in = true
		case in && strings.TrimSpace(line) == "":
			return names
		case in && strings.HasPrefix(line, "  "):
			if f := strings.Fields(line); len(f) > 0 {
				names = append(names, f[0])
			}
		}
	}
	return names
}

// troffText escapes text for a no-fill block: backslashes, and lines that
// troff would read as requests.
func troffText(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		line = strings.ReplaceAll(line, `\`, `\e`)
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			line = `\&` + line
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// manPage renders warden(1) from the CLI's own help texts, so the page
// never drifts from the flags the binary has.
func manPage(version, date, top string, sub map[string]string, order []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH WARDEN 1 %q \"warden %s\" \"Warden manual\"\n", date, version)
	b.WriteString(".SH NAME\nwarden \\- the permission engine of the Warden coding agent, headless\n")
	b.WriteString(".SH SYNOPSIS\n.B warden\n.I command\n[\\fIflags\\fR]\n.br\n.B warden-desktop\n")
	b.WriteString(".SH DESCRIPTION\n.B warden-desktop\nopens the Warden window. ")
	b.WriteString(".B warden\nruns the same engine without a window: it explains and audits decisions, runs a headless turn " +
		"or serves the UI to a local browser.\n.PP\n.nf\n")
	b.WriteString(troffText(top))
	b.WriteString(".fi\n.SH COMMANDS\n")
	for _, name := range order {
		fmt.Fprintf(&b, ".SS %s\n.nf\n%s.fi\n", name, troffText(sub[name]))
	}
	b.WriteString(`.SH FILES
.TP
.I ~/.config/warden/config.toml
model, API key and defaults ($XDG_CONFIG_HOME/warden).
.TP
.I ~/.config/warden/audit.key
the installation's audit key, which keys the event log's hash chain; keep it private (mode 0600).
.TP
.I ~/.local/share/warden/warden.db
sessions and the event log ($XDG_DATA_HOME/warden; \-\-db or $WARDEN_DB override it).
.TP
.I /usr/lib/warden/playwright-core
the Node side of the browser tool, run with the system's node.
.PP
Removing the package leaves these user files alone.
.SH SEE ALSO
.BR bwrap (1),
.BR rg (1),
.BR chromium (1)
`)
	return b.String()
}

// gzipped compresses reproducibly: no name, no timestamp.
func gzipped(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
