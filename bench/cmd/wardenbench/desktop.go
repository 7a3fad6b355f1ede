package main

import (
	"context"
	"fmt"
	"time"

	"github.com/warden-dev/warden/bench/desktopmem"
)

// DesktopResult is the desktop app's idle memory over several starts, in
// MB; PSS is the target's measure (issue 9), USS is shown beside it.
type DesktopResult struct {
	Binary    string               `json:"binary"`
	Idle      string               `json:"idle"`
	TotalPSS  Stat                 `json:"total_pss_mb"`
	TotalUSS  Stat                 `json:"total_uss_mb"`
	Processes []DesktopProcess     `json:"processes"`
	Readings  []desktopmem.Reading `json:"readings"`
	Error     string               `json:"error,omitempty"`
}

// DesktopProcess is one process name's PSS over the starts.
type DesktopProcess struct {
	Name string `json:"name"`
	PSS  Stat   `json:"pss_mb"`
}

// desktopTargetMB is issue 9's limit for the idle app, all processes.
const desktopTargetMB = 250

func benchDesktop(ctx context.Context, bin string, runs int, idle time.Duration) DesktopResult {
	res := DesktopResult{Binary: bin, Idle: idle.String()}
	rs, err := desktopmem.Runs(ctx, desktopmem.Options{Binary: bin, Idle: idle}, runs)
	res.Readings = rs
	if err != nil {
		res.Error = err.Error()
	}
	mb := func(kb int64) float64 { return float64(kb) / 1024 }
	var pss, uss []float64
	for _, r := range rs {
		pss, uss = append(pss, mb(r.Total.PSS)), append(uss, mb(r.Total.USS))
	}
	res.TotalPSS, res.TotalUSS = statOf(pss), statOf(uss)
	for _, n := range desktopmem.Names(rs) {
		var xs []float64
		for _, r := range rs {
			xs = append(xs, mb(desktopmem.ByName(r)[n]))
		}
		res.Processes = append(res.Processes, DesktopProcess{Name: n, PSS: statOf(xs)})
	}
	return res
}

func desktopRows(d DesktopResult) [][4]string {
	section := fmt.Sprintf("desktop app idle %s (PSS)", d.Idle)
	if d.TotalPSS.N == 0 {
		return [][4]string{{section, "all processes", "did not run", "error: " + firstLine(d.Error)}}
	}
	r := [][4]string{{section, "all processes", fmtStat(d.TotalPSS, "MB", 1), "USS " + fmtStat(d.TotalUSS, "MB", 1)}}
	for _, p := range d.Processes {
		r = append(r, [4]string{section, p.Name, fmtStat(p.PSS, "MB", 1), ""})
	}
	return r
}

func desktopTarget(d DesktopResult) Target {
	t := Target{Name: "desktop app idle memory, all processes (PSS)", Want: fmt.Sprintf("< %d MB", desktopTargetMB), Got: "not measured", Margin: "n/a"}
	if d.TotalPSS.N == 0 {
		return t
	}
	t.Measured = d.Error == ""
	t.Got = fmt.Sprintf("%.1f MB median of %d starts, %s idle", d.TotalPSS.Median, d.TotalPSS.N, d.Idle)
	t.Met = t.Measured && d.TotalPSS.Median < desktopTargetMB
	t.Margin = fmt.Sprintf("%.1f MB spare", desktopTargetMB-d.TotalPSS.Median)
	return t
}

func desktopNotes(d DesktopResult) []string {
	var ns []string
	if d.Error != "" {
		ns = append(ns, "desktop memory: "+d.Error)
	}
	for i, r := range d.Readings {
		if r.Neighbours > 0 {
			ns = append(ns, fmt.Sprintf("desktop memory, start %d: %d other processes mapped WebKit at the reading; sharing its pages with them lowers this start's PSS", i+1, r.Neighbours))
		}
	}
	return ns
}
