package assemble

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/backend/policy"
)

// TestEveryToolHasWords: every tool a model can call in the graph — the
// built-ins, the browser, computer.use and the runtime's meta tools — has
// its words in the policy's one table, from which the window's TypeScript
// is generated and the TUI reads.
func TestEveryToolHasWords(t *testing.T) {
	isolate(t)
	g, err := Open(context.Background(), Options{DBPath: filepath.Join(t.TempDir(), "w.db"), NoModel: true, LeaveSessions: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	words := policy.ToolWords()
	names := g.ToolNames()
	if len(names) < 15 {
		t.Fatalf("the graph has only %v", names)
	}
	for _, n := range names {
		if words[n] == "" {
			t.Errorf("tool %s has no words in backend/policy/words.go", n)
		}
	}
}
