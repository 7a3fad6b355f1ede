// Command netbench measures what routing a caged command's network through
// Warden's proxy costs, side by side in one run: a 10 MB fetch from a
// loopback server direct vs through the proxy, and a small page fetched by
// curl uncaged, in a cage sharing the host's network (what the cage did
// before it always had its own namespace), and in Warden's cage through the
// proxy (the warden CLI re-executed in the cage binds the proxy socket, as in
// use: -forwarder, else built here). bench/run.sh runs it for `make bench`; it writes
// a section of docs/benchmarks.md and docs/benchmarks-network.json.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/cage/netproxy"
	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// Row is one measured variant.
type Row struct {
	Name     string  `json:"name"`
	Command  string  `json:"command"`
	MedianMs float64 `json:"median_ms"`
	P90Ms    float64 `json:"p90_ms"`
	Runs     int     `json:"runs"`
}

// Ratio is one target: a variant's median over its baseline's.
type Ratio struct {
	Name     string  `json:"name"`
	Ratio    float64 `json:"ratio"`
	Target   float64 `json:"target"`
	Met      bool    `json:"met"`
	Variant  string  `json:"variant"`
	Baseline string  `json:"baseline"`
}

// Report is docs/benchmarks-network.json.
type Report struct {
	Date string `json:"date"`
	Load string `json:"loadavg_at_start"`
	// Forwarder is the binary re-executed in the cage, with its size.
	Forwarder string  `json:"forwarder"`
	Rows      []Row   `json:"rows"`
	Ratios    []Ratio `json:"ratios"`
}

func main() {
	rounds := flag.Int("rounds", 20, "interleaved rounds")
	md := flag.String("md", "docs/benchmarks.md", "Markdown file whose network section is (re)written; empty to skip")
	jsonOut := flag.String("json", "docs/benchmarks-network.json", "JSON output; empty to skip")
	work := flag.String("work", "", "workspace folder of the caged runs (default: a folder under the user cache)")
	fwd := flag.String("forwarder", "", "the warden binary serving as the cage's network forwarder (default: go build ./cmd/warden into the work folder)")
	flag.Parse()
	rep, err := measure(context.Background(), *rounds, *work, *fwd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "netbench:", err)
		os.Exit(1)
	}
	text := markdown(rep)
	fmt.Print(text)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "netbench:", err)
			os.Exit(1)
		}
	}
	if *md != "" {
		if err := replaceSection(*md, text); err != nil {
			fmt.Fprintln(os.Stderr, "netbench:", err)
			os.Exit(1)
		}
	}
}

const sectionTitle = "## Network through the proxy"

func measure(ctx context.Context, rounds int, work, fwd string) (Report, error) {
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.TrimSpace(string(b))
	}
	big := make([]byte, 10<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Report{}, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	mux := http.NewServeMux()
	mux.HandleFunc("/10mb", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(big) })
	mux.HandleFunc("/small", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html><body>small page</body></html>"))
	})
	go func() { _ = http.Serve(ln, mux) }()

	// The host-side proxy, alone, on TCP: the proxy's own cost.
	allowAll := netproxy.DeciderFunc(func(context.Context, policy.Destination) netproxy.Verdict {
		return netproxy.Verdict{Allow: true, By: "bench"}
	})
	px, err := netproxy.New(netproxy.Config{Decider: allowAll})
	if err != nil {
		return Report{}, err
	}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Report{}, err
	}
	go func() { _ = px.Serve(ctx, pln) }()

	if work == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return Report{}, err
		}
		work = filepath.Join(cache, "warden-bench", "netbench")
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return Report{}, err
	}
	ws, err := filepath.EvalSymlinks(work)
	if err != nil {
		return Report{}, err
	}
	// The forwarder is the product's: the warden binary, re-executed in the
	// cage, not this small program (whose start costs less).
	if fwd == "" {
		fwd = filepath.Join(ws, "..", "warden-forwarder")
		build := exec.CommandContext(ctx, "go", "build", "-o", fwd, "./cmd/warden")
		build.Env = append(os.Environ(), "CGO_ENABLED=1") // as `make cli` builds it (the store is the C SQLite)
		if out, err := build.CombinedOutput(); err != nil {
			return Report{}, fmt.Errorf("building the forwarder (run from the repository root, or pass -forwarder): %w: %s", err, out)
		}
	}
	cage := sandbox.New(sandbox.Config{Forwarder: fwd})
	defer cage.Close()
	if st := cage.Detect(ctx); !st.Available {
		return Report{}, errors.New("the cage does not work here: " + st.Reason)
	}
	rules, _ := policy.ParseHostRules([]string{fmt.Sprintf("bench.test:%d", port)}, nil)
	eg := &sandbox.Egress{
		Decider: netproxy.DeciderFunc(func(_ context.Context, d policy.Destination) netproxy.Verdict {
			dec := rules.Apply(d, policy.Decision{Verdict: policy.VerdictAsk})
			return netproxy.Verdict{Allow: dec.Verdict == policy.VerdictAllow, By: dec.Source, Reason: string(dec.Reason)}
		}),
		Resolver: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
	}
	on := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true}
	caged := func(script string) func() error {
		return func() error {
			c, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			p, err := cage.Prepare(c, sandbox.Spec{Workspace: ws, Policy: on, Args: []string{"bash", "-c", script}, Egress: eg})
			if err != nil {
				return err
			}
			out, err := p.Cmd.CombinedOutput()
			p.Finish()
			if err != nil {
				return fmt.Errorf("%w: %s", err, out)
			}
			return nil
		}
	}
	// The cage as it was with network admitted: prepared the same way (so
	// both pay for Prepare), sharing the host's network namespace, curl
	// going straight out.
	off := policy.SandboxPolicy{Kind: policy.WorkspaceWrite}
	sharedRun := func(script string) func() error {
		return func() error {
			c, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			p, err := cage.Prepare(c, sandbox.Spec{Workspace: ws, Policy: off, Args: []string{"bash", "-c", script}})
			if err != nil {
				return err
			}
			var args []string
			for _, a := range p.Cmd.Args {
				if a != "--unshare-net" {
					args = append(args, a)
				}
			}
			p.Cmd.Args = args
			out, err := p.Cmd.CombinedOutput()
			p.Finish()
			if err != nil {
				return fmt.Errorf("%w: %s", err, out)
			}
			return nil
		}
	}
	host := func(args ...string) func() error {
		return func() error {
			if out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
				return fmt.Errorf("%w: %s", err, out)
			}
			return nil
		}
	}
	bigURL := fmt.Sprintf("http://127.0.0.1:%d/10mb", port)
	smallURL := fmt.Sprintf("http://127.0.0.1:%d/small", port)
	named := func(path string) string { return fmt.Sprintf("http://bench.test:%d/%s", port, path) }
	curl := "curl -sSf -o /dev/null "
	type variant struct {
		name, command string
		run           func() error
	}
	vs := []variant{
		{"10 MB direct (curl, host)", curl + bigURL, host("curl", "-sSf", "-o", "/dev/null", bigURL)},
		{"10 MB through the proxy (curl -x, host)", curl + "-x http://" + pln.Addr().String() + " " + bigURL,
			host("curl", "-sSf", "-o", "/dev/null", "-x", "http://"+pln.Addr().String(), bigURL)},
		{"10 MB in a cage sharing the host network (direct)", "cage with --unshare-net removed: " + curl + bigURL, sharedRun(curl + bigURL)},
		{"10 MB in Warden's cage (through the proxy)", "cage " + curl + named("10mb"), caged(curl + named("10mb"))},
		{"small page direct (curl, host)", curl + smallURL, host("curl", "-sSf", "-o", "/dev/null", smallURL)},
		{"small page in a cage sharing the host network (direct)", "cage with --unshare-net removed: " + curl + smallURL, sharedRun(curl + smallURL)},
		{"small page in Warden's cage (through the proxy)", "cage " + curl + named("small"), caged(curl + named("small"))},
	}
	times := make([][]float64, len(vs))
	for _, v := range vs { // warm-up, and the check that each runs
		if err := v.run(); err != nil {
			return Report{}, fmt.Errorf("%s: %w", v.name, err)
		}
	}
	for r := 0; r < rounds; r++ {
		for i, v := range vs {
			t0 := time.Now()
			if err := v.run(); err != nil {
				return Report{}, fmt.Errorf("%s: %w", v.name, err)
			}
			times[i] = append(times[i], float64(time.Since(t0).Microseconds())/1000)
		}
	}
	rep := Report{Date: time.Now().UTC().Format(time.RFC3339), Load: load, Forwarder: fwd}
	if st, err := os.Stat(fwd); err == nil {
		rep.Forwarder = fmt.Sprintf("%s (%.0f MB)", fwd, float64(st.Size())/(1<<20))
	}
	for i, v := range vs {
		med, p90 := stats(times[i])
		rep.Rows = append(rep.Rows, Row{Name: v.name, Command: v.command, MedianMs: med, P90Ms: p90, Runs: len(times[i])})
	}
	ratio := func(name string, a, b int, target float64) {
		r := rep.Rows[a].MedianMs / rep.Rows[b].MedianMs
		rep.Ratios = append(rep.Ratios, Ratio{Name: name, Ratio: r, Target: target, Met: r <= target, Variant: rep.Rows[a].Name, Baseline: rep.Rows[b].Name})
	}
	ratio("proxied 10 MB fetch vs direct", 1, 0, 1.2)
	// Reported only: the difference is the per-command cost (warden's start
	// in the cage, the proxy hop), not bandwidth; the small-page row bounds it.
	ratio("10 MB in Warden's cage vs a cage sharing the host network", 3, 2, 0)
	ratio("caged curl of a small page vs a cage sharing the host network", 6, 5, 1.5)
	ratio("caged curl of a small page vs uncaged curl (cage start included)", 6, 4, 0)
	return rep, nil
}

func stats(xs []float64) (median, p90 float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2], s[(len(s)*9)/10]
}

func markdown(rep Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nMeasured %s by `go run ./bench/cmd/netbench` (rounds interleaved; median and p90 of wall time per run; load average at start %s).\n\n", sectionTitle, rep.Date, rep.Load)
	b.WriteString("\"Direct\" for the caged rows is the same bwrap cage, prepared the same way, with `--unshare-net` removed so curl\n" +
		"reaches the server itself (what the cage did before it always had its own namespace): the 1.5× target is\n" +
		"what the proxy path adds to a caged call (warden re-executed in the cage to bind its proxy socket and hand it\n" +
		"to the host, then the hop through the proxy), the cage's own start being in both. The last ratio also counts\n" +
		"the cage's start, against curl run on the host. The binary re-executed in the cage is the warden CLI, as in use: " +
		rep.Forwarder + ".\n\n")
	b.WriteString("| variant | median ms | p90 ms | command |\n|---|---:|---:|---|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | `%s` |\n", r.Name, r.MedianMs, r.P90Ms, r.Command)
	}
	b.WriteString("\n| target | ratio | limit | met |\n|---|---:|---:|---|\n")
	for _, r := range rep.Ratios {
		limit, met := fmt.Sprintf("%.1f×", r.Target), "yes"
		if r.Target == 0 {
			limit, met = "—", "(reported only)"
		} else if !r.Met {
			met = "NO"
		}
		fmt.Fprintf(&b, "| %s | %.2f× | %s | %s |\n", r.Name, r.Ratio, limit, met)
	}
	b.WriteString("\n")
	return b.String()
}

// replaceSection writes text as the network section of the Markdown file,
// replacing the one a previous run wrote.
func replaceSection(path, text string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	re := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(sectionTitle) + `\n.*?(\n## |\z)`)
	s := string(old)
	if loc := re.FindStringSubmatchIndex(s); loc != nil {
		end := loc[1]
		if loc[2] >= 0 && loc[3] > loc[2] && strings.HasPrefix(s[loc[2]:], "\n## ") {
			end = loc[2] + 1
		}
		s = s[:loc[0]] + text + s[end:]
	} else {
		if s != "" && !strings.HasSuffix(s, "\n\n") {
			s += "\n"
		}
		s += text
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
