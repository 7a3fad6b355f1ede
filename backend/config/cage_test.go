package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64
		ok   bool
	}{
		{"plain bytes", "1048576", 1 << 20, true},
		{"kibibytes", "512K", 512 << 10, true},
		{"megabytes with B", "64MB", 64 << 20, true},
		{"gibibytes with iB", "2GiB", 2 << 30, true},
		{"lower case", "8g", 8 << 30, true},
		{"terabytes", "1T", 1 << 40, true},
		{"no cap", "-1", -1, true},
		{"zero", "0", 0, false},
		{"negative", "-5G", 0, false},
		{"words", "lots", 0, false},
		{"empty", "", 0, false},
		{"overflow", "99999999999T", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1", "2G", "512MiB", "-1", "x", "9223372036854775807", "1T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n <= 0 && n != -1 {
			t.Fatalf("ParseSize(%q) = %d without an error", s, n)
		}
	})
}

func TestSandboxCageSettings(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, toml string
		want       CageSettings
		err        string
	}{
		{"all keys", "[sandbox]\ndeny_read = [\"~/secrets\", \"/srv/keys\"]\nallow_unix_sockets = [\"/run/user/1000/ssh-agent\"]\nmax_processes = 512\ntmp_size = \"1G\"\nmax_file_size = \"-1\"\n",
			CageSettings{DenyRead: []string{"~/secrets", "/srv/keys"}, AllowUnixSockets: []string{"/run/user/1000/ssh-agent"}, MaxProcesses: 512, TmpBytes: 1 << 30, FileBytes: -1}, ""},
		{"defaults", "[sandbox]\nmode = \"bwrap\"\n", CageSettings{}, ""},
		{"relative deny_read", "[sandbox]\ndeny_read = [\"secrets\"]\n", CageSettings{}, "must be absolute"},
		{"bad size", "[sandbox]\ntmp_size = \"huge\"\n", CageSettings{}, "not a size"},
		{"zero processes", "[sandbox]\nmax_processes = 0\n", CageSettings{}, "must be positive"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.Repeat("c", i+1)+".toml")
			if err := os.WriteFile(p, []byte(tc.toml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(p, "")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want error %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(cfg.Cage.DenyRead, ",") != strings.Join(tc.want.DenyRead, ",") ||
				strings.Join(cfg.Cage.AllowUnixSockets, ",") != strings.Join(tc.want.AllowUnixSockets, ",") ||
				cfg.Cage.MaxProcesses != tc.want.MaxProcesses || cfg.Cage.TmpBytes != tc.want.TmpBytes || cfg.Cage.FileBytes != tc.want.FileBytes {
				t.Fatalf("got %+v, want %+v", cfg.Cage, tc.want)
			}
		})
	}
}
