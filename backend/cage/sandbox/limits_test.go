package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestDefaultLimitsApply(t *testing.T) {
	c := newCage(t, Config{})
	ws := gitRepo(t)
	out, code, _ := cageRun(t, c, ws, ww, `ulimit -u; ulimit -f; df -B1 --output=size /tmp | tail -1`)
	f := strings.Fields(out)
	if code != 0 || len(f) != 3 {
		t.Fatalf("code=%d out=%s", code, out)
	}
	if f[0] != strconv.Itoa(DefaultProcesses) || f[1] != strconv.Itoa(DefaultFileBytes/1024) || f[2] != strconv.Itoa(DefaultTmpBytes) {
		t.Fatalf("limits inside the cage: processes %s, file blocks %s, /tmp bytes %s", f[0], f[1], f[2])
	}
}

func TestLimitsStopRunawayCalls(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		script string
		// check asserts on the outside world and the call's output.
		check func(t *testing.T, ws, out string, took time.Duration)
	}{
		{
			name:   "fork bomb",
			limits: Limits{Processes: 200},
			script: `bomb() { bomb | bomb & }; bomb; sleep 3; echo survived`,
			check: func(t *testing.T, ws, out string, took time.Duration) {
				if !strings.Contains(out, "Resource temporarily unavailable") && !strings.Contains(out, "retry") {
					t.Fatalf("the fork bomb was not refused inside the cage: %.400s", out)
				}
				if left := processesMentioning(ws); len(left) != 0 {
					t.Fatalf("processes left after the call: %v", left)
				}
			},
		},
		{
			name:   "50G into the private /tmp (default size)",
			script: `head -c 50G /dev/zero > /tmp/x; echo "exit=$?"; ls -l /tmp/x`,
			check: func(t *testing.T, ws, out string, took time.Duration) {
				if !strings.Contains(out, "No space left on device") || strings.Contains(out, "exit=0") {
					t.Fatalf("the /tmp write did not fail: %s", out)
				}
			},
		},
		{
			name:   "file larger than the file size limit",
			limits: Limits{FileBytes: 8 << 20},
			script: `head -c 64M /dev/zero > big; echo "exit=$?"`,
			check: func(t *testing.T, ws, out string, took time.Duration) {
				fi, err := os.Stat(filepath.Join(ws, "big"))
				if err != nil || fi.Size() > 8<<20 || strings.Contains(out, "exit=0") {
					t.Fatalf("the write was not capped: %v %v %s", fi, err, out)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCage(t, Config{Limits: tc.limits})
			ws := gitRepo(t)
			// Generous: filling the 2 GiB /tmp takes a second on a quiet
			// machine and far longer on a loaded one, and a call killed by
			// this timeout would not show the refusal the case looks for.
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			p, err := c.Prepare(ctx, Spec{Workspace: ws, Policy: ww, Args: []string{"bash", "-c", tc.script}})
			if err != nil {
				t.Fatal(err)
			}
			var buf strings.Builder
			p.Cmd.Stdout, p.Cmd.Stderr = &buf, &buf
			start := time.Now()
			_ = p.Cmd.Run()
			p.Finish()
			tc.check(t, ws, buf.String(), time.Since(start))
		})
	}
}
