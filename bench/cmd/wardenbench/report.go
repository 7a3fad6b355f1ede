package main

import (
	"fmt"
	"sort"
	"strings"
)

// Target is one promise and whether this run kept it.
type Target struct {
	Name     string `json:"name"`
	Want     string `json:"want"`
	Got      string `json:"got"`
	Met      bool   `json:"met"`
	Margin   string `json:"margin"`
	Measured bool   `json:"measured"`
}

func findStart(rep *Report, prefix string) *StartResult {
	for i := range rep.Start {
		if strings.HasPrefix(rep.Start[i].Variant, prefix) {
			return &rep.Start[i]
		}
	}
	return nil
}

func targets(rep *Report) []Target {
	var ts []Target
	add := func(name, want, got string, met, measured bool, margin string) {
		ts = append(ts, Target{Name: name, Want: want, Got: got, Met: met && measured, Margin: margin, Measured: measured})
	}
	w, raw := findStart(rep, "warden gate"), findStart(rep, "raw bwrap")
	if w != nil && raw != nil && w.Error == "" && raw.Error == "" {
		// Judged per round (Warden minus bwrap in the same round), which
		// the machine's load hits far less than two separate medians.
		allowed := 0.25 * raw.True.Median
		add("process start, `true`", "Warden gate+cage ≤ 1.25 × minimal raw bwrap, i.e. per-round overhead ≤ 0.25 × bwrap",
			fmt.Sprintf("%+.1f ms per round vs %.1f ms allowed (medians: Warden %.1f ms, bwrap %.1f ms)", w.OverRaw.Median, allowed, w.True.Median, raw.True.Median),
			w.OverRaw.Median <= allowed, w.OverRaw.N > 0, fmt.Sprintf("%.1f ms spare", allowed-w.OverRaw.Median))
		for _, peer := range []string{"codex", "srt"} {
			p := findStart(rep, peer)
			if p == nil {
				continue
			}
			if p.Error != "" {
				add("process start vs "+peer, "≥ 10× faster than "+peer, "peer did not run: "+p.Error, false, false, "n/a")
				continue
			}
			x := p.True.Median / w.True.Median
			add("process start vs "+peer, "≥ 10× faster than "+peer, fmt.Sprintf("%.1f× (%.1f ms vs %.1f ms)", x, w.True.Median, p.True.Median),
				x >= 10, true, fmt.Sprintf("%+.1f×", x-10))
		}
	} else {
		add("process start, `true`", "Warden gate+cage ≤ 1.25 × minimal raw bwrap", "not measured", false, false, "n/a")
	}
	fullAccessTarget(rep, add)
	if w != nil {
		add("Warden confines", "/etc write and loopback connect blocked", fmt.Sprintf("/etc: %s, loopback: %s", w.EtcWrite, w.LoopbackTCP),
			w.Confines, w.Error == "", "")
	}
	for _, c := range rep.Classifier {
		if !strings.HasPrefix(c.Engine, "warden") {
			continue
		}
		add("classifier: read-only allowed", "≥ 90%", fmt.Sprintf("%.1f%% (%d/%d)", c.ReadOnlyPct, c.ReadOnlyAllowed, c.ReadOnlyTotal),
			c.ReadOnlyPct >= 90, c.Error == "", fmt.Sprintf("%+.1f points", c.ReadOnlyPct-90))
		add("classifier: unsafe allowed", "0", fmt.Sprintf("%d of %d", c.UnsafeAllowed, c.UnsafeTotal),
			c.UnsafeAllowed == 0, c.Error == "", fmt.Sprintf("%d too many", c.UnsafeAllowed))
	}
	s := rep.Search
	add("search.ripgrep vs rg --json", "≤ 1.2×", fmt.Sprintf("%.2f×", s.Ratio.Median), s.Ratio.Median <= 1.2, s.Error == "",
		fmt.Sprintf("%+.2f×", 1.2-s.Ratio.Median))
	st := rep.Store
	ok := st.Error == ""
	add("store: batched durable appends", "≥ 10,000 events/s", fmt.Sprintf("%.0f events/s", st.AppendBatch.Median), st.AppendBatch.Median >= 10000, ok,
		fmt.Sprintf("%.1f×", st.AppendBatch.Median/10000))
	worst := max(st.Last200CPU.Median, st.Last200BigCPU.Median)
	add("store: last 200 events of a session (1M db)", "< 10 ms CPU", fmt.Sprintf("%.2f ms CPU, 100k-event session %.2f ms CPU (wall %.2f / %.2f ms)",
		st.Last200CPU.Median, st.Last200BigCPU.Median, st.Last200.Median, st.Last200Big.Median),
		worst < 10, ok, fmt.Sprintf("%.1f ms spare", 10-worst))
	add("store: permission audit of a session (1M db)", "< 10 ms CPU", fmt.Sprintf("%.2f ms CPU (wall %.2f ms), %d events", st.AuditCPU.Median, st.Audit.Median, st.AuditEvents),
		st.AuditCPU.Median < 10, ok, fmt.Sprintf("%.1f ms spare", 10-st.AuditCPU.Median))
	for _, d := range rep.Decide {
		want := fmt.Sprintf("< %.0f µs CPU per decision", d.TargetNs/1000)
		met := d.CPUNsPerOp < d.TargetNs
		if strings.HasPrefix(d.Call, "fs.read") {
			want += ", 0 allocs"
			met = met && d.AllocsPerOp == 0
		}
		add("Decide "+d.Call, want, fmt.Sprintf("%.0f CPU-ns/op (%.0f wall ns/op), %d allocs/op", d.CPUNsPerOp, d.NsPerOp, d.AllocsPerOp), met, d.Error == "",
			fmt.Sprintf("%.1f× under", d.TargetNs/max(d.CPUNsPerOp, 1)))
	}
	if rep.Desktop.Binary != "" {
		ts = append(ts, desktopTarget(rep.Desktop))
	}
	return ts
}

func notes(rep *Report) []string {
	var ns []string
	// The unconfined control must get through both probes, or the probes
	// prove nothing about the sandboxes.
	if c := findStart(rep, "sh -c"); c != nil && c.Error == "" && (c.EtcWrite != "WRITTEN" || c.LoopbackTCP != "CONNECTED") {
		ns = append(ns, fmt.Sprintf("PROBES INVALID: the unsandboxed control was not let through (/etc %s, loopback %s)", c.EtcWrite, c.LoopbackTCP))
	}
	for _, s := range rep.Start {
		if s.Error != "" {
			ns = append(ns, fmt.Sprintf("%s: %s", s.Variant, s.Error))
		}
	}
	for _, c := range rep.Classifier {
		if c.Error != "" {
			ns = append(ns, fmt.Sprintf("%s: %s", c.Engine, c.Error))
		}
		if len(c.UnsafeExamples) > 0 {
			ex := c.UnsafeExamples
			if len(ex) > 12 {
				ex = ex[:12]
			}
			ns = append(ns, fmt.Sprintf("%s allowed without asking %d unsafe commands, e.g. `%s`", c.Engine, c.UnsafeAllowed, strings.Join(ex, "`, `")))
		}
	}
	if rep.Search.Error != "" {
		ns = append(ns, "search: "+rep.Search.Error)
	}
	if rep.Store.Error != "" {
		ns = append(ns, "store: "+rep.Store.Error)
	}
	for _, d := range rep.Decide {
		if d.Error != "" {
			ns = append(ns, "decide "+d.Call+": "+d.Error)
		}
	}
	ns = append(ns, desktopNotes(rep.Desktop)...)
	return ns
}

func fmtStat(s Stat, unit string, prec int) string {
	if s.N == 0 {
		return "—"
	}
	f := fmt.Sprintf("%%.%df %%s (%%.%df–%%.%df)", prec, prec, prec)
	return fmt.Sprintf(f, s.Median, unit, s.Min, s.Max)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// rows is the table every renderer shares: section, what, median (min–max),
// ratio or verdict.
func rows(rep *Report) [][4]string {
	var r [][4]string
	var base float64
	if raw := findStart(rep, "raw bwrap"); raw != nil {
		base = raw.True.Median
	}
	for _, s := range rep.Start {
		if s.Error != "" && s.True.N == 0 {
			r = append(r, [4]string{"process start", s.Variant, "did not run", "error: " + firstLine(s.Error)})
			continue
		}
		ratio := ""
		if base > 0 {
			ratio = fmt.Sprintf("%.2f× bwrap; ", s.True.Median/base)
		}
		if s.OverRaw.N > 0 && !strings.HasPrefix(s.Variant, "raw bwrap") {
			ratio += fmt.Sprintf("%+.1f ms vs bwrap per round; ", s.OverRaw.Median)
		}
		if s.CPU.N > 0 {
			ratio += fmt.Sprintf("CPU %.2f ms", s.CPU.Median)
			if raw := findStart(rep, "raw bwrap"); raw != nil && raw.CPU.Median > 0 {
				ratio += fmt.Sprintf(" (%.2f× bwrap's)", s.CPU.Median/raw.CPU.Median)
			}
			ratio += "; "
		}
		r = append(r, [4]string{"process start `true`", s.Variant, fmtStat(s.True, "ms", 1),
			ratio + fmt.Sprintf("confines: %s (/etc %s, loopback %s)", yesNo(s.Confines), s.EtcWrite, s.LoopbackTCP)})
	}
	for _, s := range rep.Start {
		if s.Ls.N > 0 {
			r = append(r, [4]string{"process start `ls /`", s.Variant, fmtStat(s.Ls, "ms", 1), ""})
		}
	}
	for _, c := range rep.Classifier {
		if c.Error != "" && c.DecisionsPerSec.N == 0 {
			r = append(r, [4]string{"classifier", c.Engine, "did not run", "error: " + firstLine(c.Error)})
			continue
		}
		r = append(r, [4]string{"classifier", c.Engine, fmtStat(c.DecisionsPerSec, "decisions/s", 0),
			fmt.Sprintf("read-only allowed %.1f%% (%d/%d); unsafe allowed %d/%d", c.ReadOnlyPct, c.ReadOnlyAllowed, c.ReadOnlyTotal, c.UnsafeAllowed, c.UnsafeTotal)})
	}
	s := rep.Search
	r = append(r, [4]string{"search (10,000 files, 2,500 matches)", "search.ripgrep", fmtStat(s.Tool, "ms", 1), fmt.Sprintf("%.2f× rg (pairwise %s)", s.Ratio.Median, fmtStat(s.Ratio, "×", 2))})
	r = append(r, [4]string{"search (10,000 files, 2,500 matches)", "rg --json", fmtStat(s.Rg, "ms", 1), ""})
	st := rep.Store
	r = append(r, [4]string{"store", "durable append, 1 event per commit", fmtStat(st.AppendSingle, "events/s", 0), ""})
	r = append(r, [4]string{"store", "durable append, 100 events per commit", fmtStat(st.AppendBatch, "events/s", 0), ""})
	r = append(r, [4]string{"store (1,000,000 events)", "last 200 events, 1,000-event session", fmtStat(st.Last200, "ms", 2), "CPU " + fmtStat(st.Last200CPU, "ms", 2)})
	r = append(r, [4]string{"store (1,000,000 events)", "last 200 events, 100,000-event session", fmtStat(st.Last200Big, "ms", 2), "CPU " + fmtStat(st.Last200BigCPU, "ms", 2)})
	r = append(r, [4]string{"store (1,000,000 events)", "permission audit of a session", fmtStat(st.Audit, "ms", 2), fmt.Sprintf("CPU %s; %d events", fmtStat(st.AuditCPU, "ms", 2), st.AuditEvents)})
	for _, d := range rep.Decide {
		r = append(r, [4]string{"Decide", d.Call, fmt.Sprintf("%.0f ns/op", d.NsPerOp), fmt.Sprintf("%.0f CPU-ns/op; %d allocs/op, %d B/op", d.CPUNsPerOp, d.AllocsPerOp, d.BytesPerOp)})
	}
	if rep.Desktop.Binary != "" {
		r = append(r, desktopRows(rep.Desktop)...)
	}
	return r
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func versionList(rep *Report) []string {
	var ks []string
	for k := range rep.Versions {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []string
	for _, k := range ks {
		out = append(out, k+" "+rep.Versions[k])
	}
	return out
}

func renderText(rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Warden benchmarks, %s — %d CPUs (%s), kernel %s, load %s\n", rep.Date, rep.Machine.CPUs, rep.Machine.CPU, rep.Machine.Kernel, rep.Machine.Load)
	fmt.Fprintf(&b, "versions: %s\n\n", strings.Join(versionList(rep), "; "))
	w := [4]int{}
	rs := rows(rep)
	for _, r := range rs {
		for i := 0; i < 3; i++ {
			w[i] = max(w[i], len([]rune(r[i])))
		}
	}
	for _, r := range rs {
		fmt.Fprintf(&b, "%-*s  %-*s  %-*s  %s\n", w[0], r[0], w[1], r[1], w[2], r[2], r[3])
	}
	b.WriteString("\ntargets:\n")
	for _, t := range rep.Targets {
		mark := "MET   "
		if !t.Met {
			mark = "MISSED"
		}
		if !t.Measured {
			mark = "NOT MEASURED"
		}
		fmt.Fprintf(&b, "  %s %s: want %s, got %s (%s)\n", mark, t.Name, t.Want, t.Got, t.Margin)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func renderMarkdown(rep *Report) string {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Warden measured side by side with the tools users would pick instead, in one run on one machine.\n")
	b.WriteString("Regenerate with `make bench` (bench/run.sh); the same figures are in `docs/benchmarks.json`.\n")
	b.WriteString("Every figure is a median with min–max over repeated runs; the process-start variants run interleaved\n")
	b.WriteString("(one of each per round) so the machine's load falls on all of them alike.\n\n")
	fmt.Fprintf(&b, "- **Date:** %s\n", rep.Date)
	fmt.Fprintf(&b, "- **Machine:** %d CPUs, %s, %s, kernel %s; load average at start %s\n", rep.Machine.CPUs, rep.Machine.CPU, rep.Machine.OS, rep.Machine.Kernel, rep.Machine.Load)
	fmt.Fprintf(&b, "- **Versions:** %s\n", strings.Join(versionList(rep), "; "))
	fmt.Fprintf(&b, "- **Run time:** %.0f s\n\n", rep.Seconds)
	b.WriteString("| Section | Variant | Median (min–max) | Ratio / result |\n|---|---|---|---|\n")
	for _, r := range rows(rep) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdEscape(r[0]), mdEscape(r[1]), mdEscape(r[2]), mdEscape(r[3]))
	}
	b.WriteString("\n## Targets\n\n| Target | Want | Got | Verdict |\n|---|---|---|---|\n")
	for _, t := range rep.Targets {
		v := "met"
		if !t.Met {
			v = "**missed**"
		}
		if !t.Measured {
			v = "**not measured**"
		}
		if t.Margin != "" {
			v += " (" + t.Margin + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdEscape(t.Name), mdEscape(t.Want), mdEscape(t.Got), mdEscape(v))
	}
	b.WriteString(method)
	b.WriteString("\n## How each variant was run\n\n")
	for _, s := range rep.Start {
		cmd := s.Command
		if cmd == "" {
			cmd = "(did not start)"
		}
		fmt.Fprintf(&b, "- **%s**: `%s`\n", s.Variant, cmd)
	}
	for _, c := range rep.Classifier {
		fmt.Fprintf(&b, "- **%s**: %s\n", c.Engine, c.Setting)
	}
	if len(rep.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(&b, "- %s\n", mdEscape(n))
		}
	}
	return b.String()
}

const method = `
## Method

- **Process start.** Each round runs every variant once with ` + "`true`" + ` and once with ` + "`ls /`" + `, in turn, so load from
  the rest of the machine falls on all of them alike; "vs bwrap per round" is the median difference within a round,
  and Warden's target (1.1 × bwrap + 5 ms) is judged on it: overhead ≤ 0.1 × bwrap's median + 5 ms. Warden is
  ` + "`gate.Call(shell.exec)`" + ` in-process: effects, the engine's decision, the cage's bwrap command line with its protected
  paths, the run, the after-exit check. "Raw bwrap" is the very command line the cage builds, started directly. Before
  timing, every variant must pass two probes in the same run, judged by effect, not exit code: ` + "`echo pwned > /etc/…`" + `
  (the file must not appear) and a bash ` + "`/dev/tcp`" + ` connect to a listener on 127.0.0.1 (the listener must see no
  connection). For Warden a stand-in human approves whatever the engine asks; where the engine refuses outright (a
  write to /etc), the probe is repeated through shell.exec without the gate, so the row says whether the cage holds on
  its own. The unsandboxed ` + "`sh -c`" + ` control must get through both probes, or the run flags the probes as invalid.
- **Classifier.** Every command of bench/testdata/readonly.txt and unsafe.txt goes to each engine as a shell tool call;
  "allowed" means run without asking. Warden decides in a read-only sandbox with no OS cage, so no allow rides on the
  cage. Gemini CLI's engine is set up as the CLI sets itself up with no flags and no settings (default policy files,
  approval mode default, interactive, no sandbox, trusted folder), in bench/gemini_policy.mjs; its speed is timed inside
  node, so the pipe is not counted against it.
- **Search.** search.ripgrep and ` + "`rg --json`" + ` alternate on a generated 10,000-file tree, both reading all 2,500 matches;
  the ratio is taken per pair after one warm-up pair.
- **Store.** Durable events (fsync per commit) appended one per commit and 100 per commit to a fresh database; queries on
  a 1,000,000-event database (900 sessions of 1,000 events and one of 100,000, written interleaved), built once and
  cached in the work folder. The query targets are judged on the process's CPU time per query (wall time shown too),
  for the reason given under Decide.
- **Decide.** ` + "`testing.Benchmark`" + ` on the engine; the target is judged on the benchmark thread's own CPU time per
  decision, because on a shared machine wall-clock ns/op mostly measures the wait for a core.
- **Desktop memory.** The built desktop app (` + "`make desktop`" + `) starts under ` + "`xvfb-run`" + ` with a fresh XDG home and an
  empty database, sits idle, and then the PSS of the app and every process it started (WebKit's web and network
  processes) is read from /proc and summed; median over separate starts. PSS splits a shared page among the processes
  that map it, so the sum is what the tree costs on its own; other WebKit programs running at the same time would take
  a share of the libraries and flatter it, so the reading waits for them to go (up to 90 s) and the notes name any left.
  Before each start the binary is dropped from the page cache: a freshly linked binary sits there in large folios and
  faults in some 20 MB more of itself than an installed one read from disk. ` + "`go run ./bench/cmd/desktopmem -top 8`" + `
  takes the same reading with each process's largest mappings.
`
