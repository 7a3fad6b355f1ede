package ask

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/warden-dev/warden/backend/store"
)

// The test binary doubles as the process that is killed: re-executed with
// these set, it drives one ask instead of running the tests.
const (
	helperEnv = "WARDEN_ASK_HELPER" // the path, comma separated
	dbEnv     = "WARDEN_ASK_DB"
	sessEnv   = "WARDEN_ASK_SESSION"
	killEnv   = "WARDEN_ASK_KILL" // after N recorded transitions, or "cmd" once the command ran
	markerEnv = "WARDEN_ASK_MARKER"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		err := drive(os.Getenv(dbEnv), os.Getenv(sessEnv), parsePath(path), os.Getenv(killEnv), os.Getenv(markerEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func parsePath(s string) []Transition {
	var p []Transition
	for _, f := range strings.Split(s, ",") {
		p = append(p, Transition(f))
	}
	return p
}

// drive is a service's life for one ask: it opens the store, folds the
// session's log and carries the ask on from the recorded state along path.
// An ask found running is interrupted, never run again; the command (a
// line appended to marker) runs between start and its end. kill makes the
// process SIGKILL itself right after the given point.
func drive(db, sessionID string, path []Transition, kill, marker string) error {
	ctx := context.Background()
	st, err := store.Open(ctx, db, testKey)
	if err != nil {
		return err
	}
	defer st.Close()
	evs, err := st.Events(ctx, store.EventQuery{SessionID: sessionID})
	if err != nil {
		return err
	}
	m := NewMachine(st, Fold(evs).Asks...)
	id := ID{SessionID: sessionID, RequestID: "r1", CallID: "c1", Tool: "shell.exec"}
	a, _ := m.Get(sessionID, id.RequestID)
	die := func(at string) {
		if at == kill {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	if a.State == Running {
		_, err := step(ctx, m, id, Interrupt)
		return err
	}
	for i := len(a.Path); i < len(path); i++ {
		on := path[i]
		if on == Finish || on == Fail {
			f, err := os.OpenFile(marker, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			_, _ = f.WriteString("ran\n")
			_ = f.Sync()
			_ = f.Close()
			die("cmd")
		}
		if _, err := step(ctx, m, id, on); err != nil {
			return err
		}
		die(strconv.Itoa(i + 1))
	}
	return nil
}

// TestCrashBetweenTransitions SIGKILLs the driving process after each
// recorded transition of every path (and once after the command ran but
// before its end was recorded), then lets a fresh process resume from the
// SQLite file: the ask ends where the path ends (or interrupted, if it
// was killed while running), each event is recorded once, nothing is asked
// twice, and the command ran once or not at all.
func TestCrashBetweenTransitions(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "warden.db")
	st, _ := openAt(t, db)
	for _, path := range DefaultTable().Paths() {
		if slices.Contains(path, Interrupt) {
			continue // only a restart interrupts
		}
		kills := []string{}
		for i := 1; i <= len(path); i++ {
			kills = append(kills, strconv.Itoa(i))
			if path[i-1] == Start {
				kills = append(kills, "cmd")
			}
		}
		for _, kill := range kills {
			t.Run(pathName(path)+"/kill-after-"+kill, func(t *testing.T) {
				ss, err := st.CreateSession(ctx, store.NewSession{Workspace: "/ask"})
				if err != nil {
					t.Fatal(err)
				}
				marker := filepath.Join(dir, ss.ID+".ran")
				run := func(kill string) error {
					cmd := exec.Command(exe, "-test.run=^$")
					cmd.Env = append(os.Environ(), helperEnv+"="+pathName(path), dbEnv+"="+db, sessEnv+"="+ss.ID,
						killEnv+"="+kill, markerEnv+"="+marker)
					cmd.Stderr = os.Stderr
					return cmd.Run()
				}
				err = run(kill)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Fatalf("the driver was not killed: %v", err)
				}
				if err := run(""); err != nil {
					t.Fatalf("resume: %v", err)
				}
				check(t, st, ss.ID, path, kill, marker)
			})
		}
	}
}

func check(t *testing.T, st *store.Store, sessionID string, path []Transition, kill, marker string) {
	t.Helper()
	evs := askEvents(t, st, sessionID)
	f := Fold(evs)
	if len(f.Asks) != 1 || len(f.Skipped) > 0 {
		t.Fatalf("fold: %d asks, skipped %v", len(f.Asks), f.Skipped)
	}
	a := f.Asks[0]
	want := path
	ranWant := count(slices.Contains(path, Finish) || slices.Contains(path, Fail))
	if n := slices.Index(path, Start); n >= 0 && (kill == strconv.Itoa(n+1) || kill == "cmd") {
		// Killed while running: the restart interrupts it.
		want = append(append([]Transition(nil), path[:n+1]...), Interrupt)
		ranWant = count(kill == "cmd")
	}
	if !slices.Equal(a.Path, want) || !DefaultTable().Final(a.State) {
		t.Fatalf("path %v (%s), want %v", a.Path, a.State, want)
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events recorded for a path of %d", len(evs), len(want))
	}
	b, _ := os.ReadFile(marker)
	if ran := strings.Count(string(b), "ran"); ran != ranWant {
		t.Fatalf("the command ran %d times, want %d", ran, ranWant)
	}
}
