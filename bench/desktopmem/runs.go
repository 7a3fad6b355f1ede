package desktopmem

import (
	"context"
	"fmt"
	"sort"
)

// Runs measures n separate starts of the app, one after the other, so a
// median can be taken; it stops at the first start that fails.
func Runs(ctx context.Context, o Options, n int) ([]Reading, error) {
	if n < 1 {
		return nil, fmt.Errorf("runs: need at least one, got %d", n)
	}
	var out []Reading
	for i := 0; i < n; i++ {
		r, err := Measure(ctx, o)
		if err != nil {
			return out, fmt.Errorf("run %d of %d: %w", i+1, n, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// ByName sums a reading's PSS per process name (kB), so runs whose pids
// differ can be compared process by process.
func ByName(r Reading) map[string]int64 {
	m := map[string]int64{}
	for _, p := range r.Processes {
		m[p.Name] += p.Mem.PSS
	}
	return m
}

// Names lists the process names of all readings, largest first by their
// PSS in the first reading that has them.
func Names(rs []Reading) []string {
	size := map[string]int64{}
	var names []string
	for _, r := range rs {
		for n, kb := range ByName(r) {
			if _, ok := size[n]; !ok {
				names = append(names, n)
				size[n] = kb
			}
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if size[names[i]] != size[names[j]] {
			return size[names[i]] > size[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}
