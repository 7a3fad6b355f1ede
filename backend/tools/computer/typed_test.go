package computer

import (
	"os"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/tools"
)

// computer.use is typed: its hand schema is checked against Action, its
// description is computer_use.md.
func TestComputerToolIsTyped(t *testing.T) {
	tool := New(Options{})
	if err := tools.SchemaMatches[Action](tool.Schema()); err != nil {
		t.Error(err)
	}
	b, err := os.ReadFile("computer_use.md")
	if err != nil || strings.TrimSpace(string(b)) != tool.Description() {
		t.Errorf("description %q, file %q (%v)", tool.Description(), b, err)
	}
}
