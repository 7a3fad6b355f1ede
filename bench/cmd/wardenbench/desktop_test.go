package main

import (
	"strings"
	"testing"

	"github.com/warden-dev/warden/bench/desktopmem"
)

func TestDesktopTargetRowsNotes(t *testing.T) {
	reading := func(pss, neighbours int64) desktopmem.Reading {
		return desktopmem.Reading{
			Processes:  []desktopmem.Process{{Name: "warden-desktop", Mem: desktopmem.Usage{PSS: pss}}},
			Total:      desktopmem.Usage{PSS: pss},
			Neighbours: int(neighbours),
		}
	}
	res := func(err string, rs ...desktopmem.Reading) DesktopResult {
		d := DesktopResult{Binary: "bin", Idle: "25s", Readings: rs, Error: err}
		var xs []float64
		for _, r := range rs {
			xs = append(xs, float64(r.Total.PSS)/1024)
		}
		d.TotalPSS = statOf(xs)
		d.Processes = []DesktopProcess{{Name: "warden-desktop", PSS: d.TotalPSS}}
		return d
	}
	cases := []struct {
		name            string
		d               DesktopResult
		met, measured   bool
		rows, notes     int
		gotHas, noteHas string
	}{
		{"under the limit", res("", reading(200*1024, 0), reading(240*1024, 0), reading(260*1024, 0)), true, true, 2, 0, "240.0 MB median of 3", ""},
		{"over the limit", res("", reading(260*1024, 0)), false, true, 2, 0, "260.0 MB", ""},
		{"never started", res("desktop binary: no such file"), false, false, 1, 1, "not measured", "no such file"},
		{"a later start failed", res("run 2 of 3: the desktop app did not start", reading(100*1024, 0)), false, false, 2, 1, "100.0 MB", "run 2 of 3"},
		{"neighbours are named", res("", reading(100*1024, 2)), true, true, 2, 1, "100.0 MB", "2 other processes mapped WebKit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := desktopTarget(c.d)
			if tg.Met != c.met || tg.Measured != c.measured || !strings.Contains(tg.Got, c.gotHas) {
				t.Errorf("target = %+v, want met %v measured %v got containing %q", tg, c.met, c.measured, c.gotHas)
			}
			if rows := desktopRows(c.d); len(rows) != c.rows {
				t.Errorf("rows = %v, want %d", rows, c.rows)
			}
			ns := desktopNotes(c.d)
			if len(ns) != c.notes || (c.noteHas != "" && !strings.Contains(strings.Join(ns, "\n"), c.noteHas)) {
				t.Errorf("notes = %v, want %d containing %q", ns, c.notes, c.noteHas)
			}
		})
	}
}
