package runtime

import (
	"os"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/tools"
)

// The runtime's own tools are made with the typed adapter too: one decode
// per call, and the model reads the .md file beside them.
func TestMetaToolsAreTyped(t *testing.T) {
	r := newRig(t, nil, nil)
	for _, name := range []string{"write_plan", "present_plan", taskToolName, taskResultToolName} {
		t.Run(name, func(t *testing.T) {
			tool, ok := r.svc.Tool(name)
			if !ok {
				t.Fatalf("no %s", name)
			}
			if _, ok := tool.(tools.Preparer); !ok {
				t.Fatalf("%s is not made with the typed adapter", name)
			}
			b, err := os.ReadFile(name + ".md")
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimSpace(string(b)); want == "" || tool.Description() != want {
				t.Fatalf("description %q, file %q", tool.Description(), want)
			}
		})
	}
}
