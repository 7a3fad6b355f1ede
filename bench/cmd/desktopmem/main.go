// Command desktopmem measures the desktop app's idle memory: it starts the
// built binary under xvfb-run a few times, each with a fresh XDG home,
// leaves it idle, and prints the PSS of every process of its tree and the
// median total. `make bench` takes the same reading through wardenbench;
// this command is for trying one change at a time:
//
//	go run ./bench/cmd/desktopmem -runs 3 -top 8 -env JSC_useJIT=0
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/warden-dev/warden/bench/desktopmem"
)

type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }
func (e *envFlag) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("want KEY=value, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

func main() {
	var o desktopmem.Options
	var env envFlag
	runs := flag.Int("runs", 3, "starts of the app; the median is reported")
	jsonOut := flag.String("json", "", "also write every reading as JSON to this file")
	flag.StringVar(&o.Binary, "bin", "build/bin/warden-desktop", "the built desktop app (make desktop)")
	flag.DurationVar(&o.Idle, "idle", 25*time.Second, "idle time before the reading")
	flag.IntVar(&o.Breakdown, "top", 0, "also list each process's N largest mappings by PSS")
	flag.Var(&env, "env", "KEY=value added to the app's environment (repeatable)")
	flag.Parse()
	o.Env = env
	rs, err := desktopmem.Runs(context.Background(), o, *runs)
	report(os.Stdout, rs)
	if *jsonOut != "" && len(rs) > 0 {
		b, _ := json.MarshalIndent(rs, "", "  ")
		if werr := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "desktopmem:", err)
		os.Exit(1)
	}
}

func report(w io.Writer, rs []desktopmem.Reading) {
	for i, r := range rs {
		fmt.Fprintf(w, "run %d: total PSS %s, USS %s, RSS %s; other WebKit processes on the machine: %d\n",
			i+1, mb(r.Total.PSS), mb(r.Total.USS), mb(r.Total.RSS), r.Neighbours)
		for _, p := range r.Processes {
			fmt.Fprintf(w, "  %-16s pid %-7d PSS %-9s USS %-9s RSS %s\n", p.Name, p.PID, mb(p.Mem.PSS), mb(p.Mem.USS), mb(p.Mem.RSS))
			for _, m := range p.Top {
				fmt.Fprintf(w, "      %9s  %s\n", mb(m.PSS), m.Name)
			}
		}
	}
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "median of %d: total PSS %s", len(rs), mb(median(rs, func(r desktopmem.Reading) int64 { return r.Total.PSS })))
	for _, n := range desktopmem.Names(rs) {
		fmt.Fprintf(w, "; %s %s", n, mb(median(rs, func(r desktopmem.Reading) int64 { return desktopmem.ByName(r)[n] })))
	}
	fmt.Fprintf(w, "; total USS %s\n", mb(median(rs, func(r desktopmem.Reading) int64 { return r.Total.USS })))
}

func median(rs []desktopmem.Reading, f func(desktopmem.Reading) int64) int64 {
	xs := make([]int64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	if len(xs)%2 == 0 {
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return xs[len(xs)/2]
}

func mb(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }
