// Command wardenbench measures Warden side by side with the tools users
// would pick instead, in one run on one machine, and writes the table as
// JSON and Markdown. `make bench` runs it through bench/run.sh.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
)

// Report is everything one run measured; docs/benchmarks.json is this.
type Report struct {
	Date       string             `json:"date"`
	Machine    Machine            `json:"machine"`
	Versions   map[string]string  `json:"versions"`
	Start      []StartResult      `json:"process_start"`
	Classifier []ClassifierResult `json:"classifier"`
	Search     SearchResult       `json:"search"`
	Store      StoreResult        `json:"store"`
	Decide     []DecideResult     `json:"decide"`
	Desktop    DesktopResult      `json:"desktop_memory"`
	Targets    []Target           `json:"targets"`
	Notes      []string           `json:"notes,omitempty"`
	Seconds    float64            `json:"run_seconds"`
}

type Machine struct {
	CPUs   int    `json:"cpus"`
	CPU    string `json:"cpu"`
	Kernel string `json:"kernel"`
	OS     string `json:"os"`
	Load   string `json:"loadavg_at_start"`
}

type config struct {
	work, peers, geminiScript, corpus string
	jsonOut, mdOut                    string
	startRounds, classRounds          int
	searchRounds, storeRounds         int
	singles                           int
	quick                             bool
	desktop                           string
	desktopRuns                       int
	desktopIdle                       time.Duration
	only                              string
}

// want says whether a section is measured in this run (-only).
func (c config) want(section string) bool {
	if c.only == "" {
		return true
	}
	for _, s := range strings.Split(c.only, ",") {
		if strings.TrimSpace(s) == section {
			return true
		}
	}
	return false
}

func main() {
	testing.Init()
	var c config
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	// Not under /tmp by default: codex refuses to set up its sandbox
	// helpers in a temporary folder.
	flag.StringVar(&c.work, "work", filepath.Join(cache, "warden-bench"), "work folder; caches the 1M-event database and the search tree")
	flag.StringVar(&c.peers, "peers", "bench/peers", "folder holding the peers' node_modules")
	flag.StringVar(&c.geminiScript, "gemini", "bench/gemini_policy.mjs", "node helper answering with Gemini CLI's PolicyEngine")
	flag.StringVar(&c.corpus, "corpus", "bench/testdata", "folder with readonly.txt and unsafe.txt")
	flag.StringVar(&c.jsonOut, "json", "docs/benchmarks.json", "JSON output; empty to skip")
	flag.StringVar(&c.mdOut, "md", "docs/benchmarks.md", "Markdown output; empty to skip")
	flag.IntVar(&c.startRounds, "start-rounds", 30, "interleaved rounds of every process-start variant")
	flag.IntVar(&c.classRounds, "classifier-rounds", 50, "passes over the classifier corpus per engine")
	flag.IntVar(&c.searchRounds, "search-rounds", 15, "interleaved search pairs")
	flag.IntVar(&c.storeRounds, "store-rounds", 5, "rounds of store appends (and x5 queries)")
	flag.IntVar(&c.singles, "singles", 200, "single-event appends per round")
	flag.BoolVar(&c.quick, "quick", false, "few iterations, for debugging; not for publishing")
	flag.StringVar(&c.desktop, "desktop", "build/bin/warden-desktop", "built desktop app whose idle memory is measured under xvfb-run; empty to skip")
	flag.IntVar(&c.desktopRuns, "desktop-runs", 3, "starts of the desktop app; the median is reported")
	flag.DurationVar(&c.desktopIdle, "desktop-idle", 25*time.Second, "idle time before each desktop reading")
	flag.StringVar(&c.only, "only", "", "comma-separated sections to measure (decide, classifier, start, search, store, desktop); empty: all")
	flag.Parse()
	if c.quick {
		c.startRounds, c.classRounds, c.searchRounds, c.storeRounds, c.singles = 3, 3, 3, 2, 30
		c.desktopRuns = 1
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "wardenbench:", err)
		os.Exit(1)
	}
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "[%s] "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, a...)...)
}

func run(ctx context.Context, c config) error {
	t0 := time.Now()
	var err error
	for _, p := range []*string{&c.work, &c.peers, &c.geminiScript, &c.corpus} {
		if *p, err = filepath.Abs(*p); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return err
	}
	if c.work, err = filepath.EvalSymlinks(c.work); err != nil {
		return err
	}
	rep := Report{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Machine: machine(), Versions: versions(c.peers)}
	logf("%d CPUs, load %s", rep.Machine.CPUs, rep.Machine.Load)

	safe, err := readCorpus(filepath.Join(c.corpus, "readonly.txt"))
	if err != nil {
		return err
	}
	unsafe, err := readCorpus(filepath.Join(c.corpus, "unsafe.txt"))
	if err != nil {
		return err
	}

	if c.want("decide") {
		logf("decide: testing.Benchmark")
		rep.Decide = benchDecide()
	}

	if c.want("classifier") {
		logf("classifier: %d read-only + %d unsafe commands, %d passes each", len(safe), len(unsafe), c.classRounds)
		rep.Classifier = []ClassifierResult{
			wardenClassifier(safe, unsafe, c.classRounds),
			geminiClassifier(ctx, c.geminiScript, c.peers, safe, unsafe, c.classRounds),
		}
	}

	if c.want("start") {
		logf("process start: %d interleaved rounds", c.startRounds)
		cage := sandbox.New(sandbox.Config{})
		if st := cage.Detect(ctx); !st.Available {
			return fmt.Errorf("the cage is not available here: %s", st.Reason)
		}
		defer cage.Close()
		ws := filepath.Join(c.work, "ws")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(ws, ".git")); err != nil {
			if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
				return fmt.Errorf("git init: %v %s", err, out)
			}
		}
		if rep.Start, err = benchStart(ctx, startEnv{work: c.work, ws: ws, peers: c.peers, cage: cage}, c.startRounds); err != nil {
			return err
		}
	}

	if c.want("search") {
		logf("search: %d files, %d pairs", searchFiles, c.searchRounds)
		rep.Search = benchSearch(ctx, c.work, c.searchRounds)
	}

	if c.want("store") {
		logf("store: appends and the 1M-event database")
		rep.Store = benchStore(ctx, c.work, c.singles, c.storeRounds, logf)
	}

	if c.desktop != "" && c.want("desktop") {
		logf("desktop memory: %d starts of %s, %s idle each", c.desktopRuns, c.desktop, c.desktopIdle)
		rep.Desktop = benchDesktop(ctx, c.desktop, c.desktopRuns, c.desktopIdle)
	}

	rep.Targets = targets(&rep)
	rep.Notes = notes(&rep)
	rep.Seconds = time.Since(t0).Seconds()
	table := renderText(&rep)
	fmt.Print(table)
	if c.quick {
		rep.Notes = append(rep.Notes, "QUICK RUN: few iterations, for debugging only.")
	}
	if c.jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(c.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if c.mdOut != "" {
		if err := os.WriteFile(c.mdOut, []byte(renderMarkdown(&rep)), 0o644); err != nil {
			return err
		}
	}
	logf("done in %.0f s", rep.Seconds)
	return nil
}

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				m.CPU = strings.TrimSpace(l[strings.Index(l, ":")+1:])
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	return m
}

func versions(peers string) map[string]string {
	v := map[string]string{"go": runtime.Version()}
	first := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			return "unavailable: " + err.Error()
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	v["bwrap"] = first("bwrap", "--version")
	v["ripgrep"] = first("rg", "--version")
	v["node"] = first("node", "--version")
	v["socat"] = "unavailable"
	if out, err := exec.Command("socat", "-V").CombinedOutput(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "socat version") {
				v["socat"] = strings.TrimSpace(strings.TrimPrefix(l, "socat version"))
			}
		}
	}
	for _, p := range []string{"@anthropic-ai/sandbox-runtime", "@openai/codex", "@google/gemini-cli-core"} {
		b, err := os.ReadFile(filepath.Join(peers, "node_modules", p, "package.json"))
		if err != nil {
			v[p] = "not installed"
			continue
		}
		var pj struct{ Version string }
		_ = json.Unmarshal(b, &pj)
		v[p] = pj.Version
	}
	return v
}
