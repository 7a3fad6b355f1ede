package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A held call's cage is set up at once and waits for the word: nil runs
// the command, an error kills the cage with nothing run, and a call that
// ends while held (its ctx) leaves nothing behind. Asserted on the world:
// the file the command would write.
func TestHeldCommandRunsOnlyOnTheWord(t *testing.T) {
	calledOff := errors.New("the start was not recorded")
	tests := []struct {
		name   string
		limits Limits
		word   error // what the hold delivers once the cage is set up
		cancel bool  // the call's ctx ends instead of a word
		ran    bool
	}{
		{name: "proceeds", ran: true},
		{name: "proceeds without limits", limits: Limits{Processes: -1, FileBytes: -1}, ran: true},
		{name: "called off", word: calledOff},
		{name: "called off without limits", limits: Limits{Processes: -1, FileBytes: -1}, word: calledOff},
		{name: "ended while held", cancel: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCage(t, Config{Limits: tc.limits})
			ws := testDir(t)
			marker := filepath.Join(ws, "ran")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			hold := make(chan error, 1)
			p, err := c.Prepare(ctx, Spec{Workspace: ws, Policy: ww, Args: []string{"bash", "-c", "touch " + marker}, Hold: hold})
			if err != nil {
				t.Fatal(err)
			}
			if !p.Held {
				t.Fatal("a bwrap cage with a Hold does not hold the command itself")
			}
			var out strings.Builder
			p.Cmd.Stdout, p.Cmd.Stderr = &out, &out
			if err := p.Cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The cage reports its first process once it exists; the
			// command must still not have run.
			for !p.lim.started.Load() {
				if ctx.Err() != nil {
					t.Fatal("the cage never reported its first process")
				}
				time.Sleep(time.Millisecond)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the command ran before the word")
			}
			if tc.cancel {
				cancel()
			} else {
				hold <- tc.word
			}
			werr := p.Cmd.Wait()
			v := p.Finish()
			_, serr := os.Stat(marker)
			if ran := serr == nil; ran != tc.ran {
				t.Fatalf("ran %v, want %v (wait %v, output %q, violations %+v)", ran, tc.ran, werr, out.String(), v)
			}
			if tc.word != nil && (werr == nil || len(v) == 0 || !strings.Contains(v[0].Detail, "called off")) {
				t.Fatalf("a called-off cage: wait %v, violations %+v", werr, v)
			}
		})
	}
}
