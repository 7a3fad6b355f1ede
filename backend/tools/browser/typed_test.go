package browser

import (
	"os"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/tools"
)

// The browser tools are typed: their hand schemas (enums, bounds) are
// checked against the argument types, their descriptions are the .md
// files beside them, and a call's steps are decoded once.
func TestBrowserToolsAreTyped(t *testing.T) {
	m := NewManager(Options{})
	act, batch := NewActionTool(m), NewBatchTool(m)
	if err := tools.SchemaMatches[Action](act.Schema()); err != nil {
		t.Error(err)
	}
	if err := tools.SchemaMatches[Batch](batch.Schema()); err != nil {
		t.Error(err)
	}
	for _, tool := range []tools.Tool{act, batch} {
		if _, ok := tool.(tools.Preparer); !ok {
			t.Errorf("%s is not typed", tool.Name())
		}
		b, err := os.ReadFile(strings.ReplaceAll(tool.Name(), ".", "_") + ".md")
		if err != nil || strings.TrimSpace(string(b)) != tool.Description() {
			t.Errorf("%s: description %q, file %q (%v)", tool.Name(), tool.Description(), b, err)
		}
	}
}
