package store

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func helperCmd(t *testing.T, role, db string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^$"}, args...)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+role, helperDBEnv+"="+db)
	return cmd
}

// TestCrashDurability SIGKILLs a writer process mid-stream many times. After
// each kill the next writer reopens the file; at the end every acknowledged
// event is present, every chain verifies and integrity_check is ok.
func TestCrashDurability(t *testing.T) {
	t.Parallel()
	const kills = 15
	path := filepath.Join(t.TempDir(), "warden.db")
	acked := map[string]int64{}
	total := 0
	for round := range kills {
		cmd := helperCmd(t, "crash-writer", path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// Kill at a random moment after the writer is well under way.
		first := true
		var deadline <-chan time.Time
		if round%4 == 3 { // sometimes during open, migration or the first append
			first = false
			deadline = time.After(time.Duration(rand.IntN(15)) * time.Millisecond)
		}
	read:
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					break read
				}
				f := strings.Fields(line)
				if len(f) != 3 || f[0] != "ack" {
					t.Fatalf("round %d: writer said %q", round, line)
				}
				v, _ := strconv.ParseInt(f[2], 10, 64)
				acked[f[1]] = max(acked[f[1]], v)
				total++
				if first {
					first = false
					deadline = time.After(time.Duration(20+rand.IntN(200)) * time.Millisecond)
				}
			case <-deadline:
				cmd.Process.Signal(syscall.SIGKILL)
				deadline = nil
			}
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: writer ended with %v, not by SIGKILL", round, err)
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for sid, v := range acked {
		sess, err := s.Session(ctx, sid)
		if err != nil {
			t.Fatalf("acknowledged session %s lost: %v", sid, err)
		}
		if sess.Version < v {
			t.Errorf("session %s at version %d, but version %d was acknowledged", sid, sess.Version, v)
		}
		evs, err := s.Events(ctx, EventQuery{SessionID: sid})
		if err != nil || int64(len(evs)) != sess.Version {
			t.Errorf("session %s: %d events for version %d (%v)", sid, len(evs), sess.Version, err)
		}
	}
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("after %d kills: %+v, %v", kills, rep, err)
	}
	t.Logf("%d kills, %d acknowledged appends over %d sessions, %d events verified", kills, total, len(acked), rep.Events)
	if total < kills {
		t.Errorf("only %d appends acknowledged in %d rounds", total, kills)
	}
}

// TestTwoProcessesShareTheFile: two writer processes and this one append to
// the same sessions at once; no append fails, none is lost.
func TestTwoProcessesShareTheFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warden.db")
	s, err := Open(ctx, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for range 2 {
		x, err := s.CreateSession(ctx, NewSession{Workspace: "/shared"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, x.ID)
	}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		cmd := helperCmd(t, "shared-writer", path, strings.Join(ids, ","))
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := cmd.CombinedOutput()
			outs[i] = string(b)
			if err != nil {
				outs[i] += " (" + err.Error() + ")"
			}
		}()
	}
	for i := range sharedWrites {
		if _, err := s.Append(ctx, ids[i%2], AnyVersion, MessageAppended{Role: "assistant", Text: "parent"}); err != nil {
			t.Errorf("parent append %d: %v", i, err)
		}
	}
	wg.Wait()
	for i, out := range outs {
		if strings.TrimSpace(out) != "done" {
			t.Errorf("writer %d: %s", i, out)
		}
	}
	var n int64
	for _, id := range ids {
		x, err := s.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n += x.Version - 1
	}
	if n != 3*sharedWrites {
		t.Errorf("%d messages stored, want %d", n, 3*sharedWrites)
	}
	if rep, err := s.Verify(ctx); err != nil || !rep.OK() {
		t.Errorf("verify: %+v %v", rep, err)
	}
}

// TestReadOnlyDirectory opens in a directory the process cannot write. As
// root, permissions do not bind, so the helper runs as nobody.
func TestReadOnlyDirectory(t *testing.T) {
	t.Parallel()
	base, err := os.MkdirTemp("", "warden-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "ro"), 0o755); os.RemoveAll(base) })
	dir := filepath.Join(base, "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "existing.db")
	s, err := Open(context.Background(), existing, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSession(context.Background(), NewSession{Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.Remove(existing + "-wal")
	os.Remove(existing + "-shm")
	before, _ := os.ReadFile(existing)
	os.Chmod(base, 0o755)
	os.Chmod(existing, 0o644)
	os.Chmod(dir, 0o555)
	cases := []struct{ name, path string }{
		{"new database", filepath.Join(dir, "new.db")},
		{"existing database", existing},
		{"new directory", filepath.Join(dir, "sub", "warden.db")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := openAsUnprivileged(t, base, tc.path)
			if !strings.Contains(msg, tc.path) || !strings.Contains(msg, "--db") ||
				!strings.Contains(msg, ErrNotWritable.Error()) && !strings.Contains(msg, "writable") {
				t.Errorf("error %q does not name the file, say it is not writable and what to do", msg)
			}
		})
	}
	after, _ := os.ReadFile(existing)
	if string(before) != string(after) {
		t.Error("the existing database was changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files appeared in the read-only directory: %v", entries)
	}
}

// openAsUnprivileged runs Open in a helper as uid/gid 65534 (or as this
// user when not root) and returns the error text it printed.
func openAsUnprivileged(t *testing.T, base, path string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		_, err := Open(context.Background(), path, testKey)
		if err == nil {
			t.Fatal("Open succeeded")
		}
		return err.Error()
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "store.test")
	if _, err := os.Stat(bin); err != nil {
		copyFile(t, exe, bin)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = []string{helperEnv + "=open", helperDBEnv + "=" + path, "HOME=/nonexistent"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	if len(out) == 0 || string(out) == "<nil>" {
		t.Fatal("Open succeeded as an unprivileged user")
	}
	return string(out)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
