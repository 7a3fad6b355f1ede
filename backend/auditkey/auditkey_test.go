package auditkey

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateMakesAPrivateKeyOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "config", "warden")
	path := PathFor(filepath.Join(dir, "config.toml"))
	key, created, err := LoadOrCreate(path)
	if err != nil || !created || len(key) != Size {
		t.Fatalf("first use: %d bytes, created %v, %v", len(key), created, err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
	again, created, err := LoadOrCreate(path)
	if err != nil || created || !bytes.Equal(again, key) {
		t.Errorf("second use: created %v, same key %v, %v", created, bytes.Equal(again, key), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".audit.key-*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestConcurrentFirstUseAgrees(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, _, err := LoadOrCreate(path)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for i, k := range keys {
		if !bytes.Equal(k, keys[0]) {
			t.Errorf("process %d got another key", i)
		}
	}
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("ab", Size) + "\n"
	cases := []struct {
		name    string
		setup   func(path string) error
		wantErr string
	}{
		{"missing", func(string) error { return nil }, "no such file"},
		{"readable by others", func(p string) error { return os.WriteFile(p, []byte(good), 0o644) }, "chmod 600"},
		{"too short", func(p string) error { return os.WriteFile(p, []byte("abcd\n"), 0o600) }, "damaged"},
		{"not hex", func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("zz", Size)), 0o600) }, "damaged"},
		{"a symlink", func(p string) error {
			target := p + ".real"
			if err := os.WriteFile(target, []byte(good), 0o600); err != nil {
				return err
			}
			return os.Symlink(target, p)
		}, "not a regular file"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }, "not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := tc.setup(path); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Load: %v; want %q", err, tc.wantErr)
			}
		})
	}
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte(good), 0o600)
	if k, err := Load(path); err != nil || len(k) != Size || k[0] != 0xab {
		t.Errorf("good key: %x, %v", k, err)
	}
}

// A damaged key is not silently replaced: that would orphan the log it keyed.
func TestLoadOrCreateKeepsADamagedKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("garbage"), 0o600)
	if _, _, err := LoadOrCreate(path); err == nil {
		t.Fatal("damaged key replaced")
	}
	if b, _ := os.ReadFile(path); string(b) != "garbage" {
		t.Errorf("key file now %q", b)
	}
}
