// Package desktopmem measures the idle memory of the desktop app and of
// every process it starts (WebKit's web and network processes), the way
// issue 9 states the target: proportional set size (PSS) summed over the
// whole process tree, read from /proc.
package desktopmem

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Usage is one process's memory in kB, from /proc/PID/smaps_rollup.
type Usage struct {
	RSS int64 `json:"rss_kb"`
	// PSS splits every shared page among the processes that map it, so
	// the figures of all processes add up to what they cost together.
	PSS int64 `json:"pss_kb"`
	// USS (private clean + private dirty) is what the process alone
	// holds; unlike PSS it does not move when other programs on the
	// machine map the same libraries.
	USS int64 `json:"uss_kb"`
}

// ParseRollup reads the smaps_rollup format. Unknown fields are ignored;
// a Pss line is required, because without it there is nothing to report.
func ParseRollup(r io.Reader) (Usage, error) {
	var u Usage
	seenPSS := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, kb, ok, err := field(sc.Text())
		if err != nil {
			return Usage{}, err
		}
		if !ok {
			continue
		}
		switch key {
		case "Rss":
			u.RSS = kb
		case "Pss":
			u.PSS, seenPSS = kb, true
		case "Private_Clean", "Private_Dirty":
			u.USS += kb
		}
	}
	if err := sc.Err(); err != nil {
		return Usage{}, fmt.Errorf("read smaps_rollup: %w", err)
	}
	if !seenPSS {
		return Usage{}, fmt.Errorf("smaps_rollup has no Pss line")
	}
	return u, nil
}

// Mapping is the PSS of every mapping of one file (or of anonymous memory,
// named "[anon]") within one process, in kB.
type Mapping struct {
	Name string `json:"name"`
	PSS  int64  `json:"pss_kb"`
}

// ParseSmaps reads /proc/PID/smaps and sums PSS per mapped path, largest
// first: it says whether a process's memory is its heap, a library's
// relocated data, JIT code or buffers.
func ParseSmaps(r io.Reader) ([]Mapping, error) {
	sums := map[string]int64{}
	name := ""
	inMapping := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if n, ok := header(line); ok {
			name, inMapping = n, true
			continue
		}
		key, kb, ok, err := field(line)
		if err != nil {
			return nil, err
		}
		if ok && key == "Pss" {
			if !inMapping {
				return nil, fmt.Errorf("smaps: Pss line before any mapping header")
			}
			sums[name] += kb
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read smaps: %w", err)
	}
	out := make([]Mapping, 0, len(sums))
	for n, kb := range sums {
		out = append(out, Mapping{Name: n, PSS: kb})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].PSS != out[j].PSS {
			return out[i].PSS > out[j].PSS
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// header recognises a mapping line ("start-end perms offset dev inode
// [path]") and returns the path, "[anon]" when there is none.
func header(line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) < 5 || strings.HasSuffix(f[0], ":") {
		return "", false
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok || !isHex(lo) || !isHex(hi) {
		return "", false
	}
	// A path may hold spaces; it is everything after the fifth field.
	rest := line
	for i := 0; i < 5; i++ {
		rest = strings.TrimLeft(rest, " \t")
		rest = rest[strings.IndexAny(rest+" ", " \t"):]
	}
	if p := strings.TrimSpace(rest); p != "" {
		return p, true
	}
	return "[anon]", true
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// field parses "Key:   123 kB". ok is false for lines of another shape
// (headers, VmFlags); a kB line whose number does not parse is an error.
func field(line string) (key string, kb int64, ok bool, err error) {
	k, rest, found := strings.Cut(line, ":")
	if !found || k == "" || strings.ContainsAny(k, " \t") {
		return "", 0, false, nil
	}
	f := strings.Fields(rest)
	if len(f) != 2 || f[1] != "kB" {
		return "", 0, false, nil
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return "", 0, false, fmt.Errorf("smaps: %s: bad size %q", k, f[0])
	}
	return k, n, true, nil
}
