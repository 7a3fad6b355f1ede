package desktop

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// imageRange is one read-only mapping of the executable.
type imageRange struct {
	start, end uint64
}

// readOnlyImage lists the mappings of exe in a /proc/PID/maps listing
// that are not writable: its code and read-only data, which the kernel can
// always read back from the file. Writable mappings (data, relocations) are
// left alone: dropping them would need swap.
func readOnlyImage(r io.Reader, exe string) ([]imageRange, error) {
	var out []imageRange
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || strings.Join(f[5:], " ") != exe {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			return nil, fmt.Errorf("maps: bad range %q", f[0])
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			return nil, fmt.Errorf("maps: bad range %q", f[0])
		}
		if len(f[1]) < 2 || f[1][1] == 'w' {
			continue
		}
		out = append(out, imageRange{start: start, end: end})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read maps: %w", err)
	}
	return out, nil
}
