package mcpconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadHashKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "mcp-trust.key")
	first, err := LoadHashKey(path)
	if err != nil || len(first) != hashKeyBytes {
		t.Fatalf("create: %x, %v", first, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v, %v", st, err)
	}
	again, err := LoadHashKey(path)
	if err != nil || !bytes.Equal(first, again) {
		t.Fatalf("reload gave another key: %v", err)
	}
	for name, body := range map[string]string{"not hex": "zz\n", "short": "abcd\n", "empty": ""} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadHashKey(p); err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("err = %v, want damaged", err)
			}
		})
	}
}
