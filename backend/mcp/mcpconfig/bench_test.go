package mcpconfig

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkParseMCPJSON(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "config", "valid.mcp.json"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ParseMCPJSON(data, "x"); err != nil {
			b.Fatal(err)
		}
	}
}
