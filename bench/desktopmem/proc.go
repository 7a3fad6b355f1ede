package desktopmem

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// parseStat returns the command name and parent pid from /proc/PID/stat.
// The name sits in parentheses and may itself hold spaces and ')', so the
// fields are counted from the last ')'.
func parseStat(b []byte) (comm string, ppid int, err error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("stat: no (comm)")
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 2 {
		return "", 0, fmt.Errorf("stat: too few fields after comm")
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil || ppid < 0 {
		return "", 0, fmt.Errorf("stat: bad ppid %q", f[1])
	}
	return string(b[open+1 : end]), ppid, nil
}

// procInfo is what one scan of /proc knows about a process.
type procInfo struct {
	comm string
	ppid int
}

// scanProcs reads every process's name and parent. Processes that exit
// while the scan runs are simply missing from the result.
func scanProcs(proc string) (map[int]procInfo, error) {
	ents, err := os.ReadDir(proc)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", proc, err)
	}
	out := map[int]procInfo{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, e.Name(), "stat"))
		if err != nil {
			continue
		}
		comm, ppid, err := parseStat(b)
		if err != nil {
			continue
		}
		out[pid] = procInfo{comm: comm, ppid: ppid}
	}
	return out, nil
}

// tree returns root and all its descendants, in pid order.
func tree(procs map[int]procInfo, root int) []int {
	kids := map[int][]int{}
	for pid, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], pid)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	sort.Ints(out[1:])
	return out
}

// othersMapping counts the processes outside ours that map a file whose
// path contains lib: they take a share of the library's pages, which
// lowers our PSS, so a run with such neighbours flatters the figure.
func othersMapping(proc string, procs map[int]procInfo, ours map[int]bool, lib string) int {
	n := 0
	for pid := range procs {
		if ours[pid] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "maps"))
		if err == nil && bytes.Contains(b, []byte(lib)) {
			n++
		}
	}
	return n
}
