package telemetry

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestSafeSignature runs testdata/signatures.txt: a signature that spells
// a command or a path leaves the machine as its namespace and a hash unless
// log_arguments is on; families, hosts and tools leave as they are.
func TestSafeSignature(t *testing.T) {
	f, err := os.Open("testdata/signatures.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sig, want, _ := strings.Cut(line, " | ")
		n++
		t.Run(sig, func(t *testing.T) {
			got := safeSignature(sig, false)
			if ns, ok := strings.CutPrefix(want, "hash "); ok {
				if !strings.HasPrefix(got, ns+"sha256:") || len(got) != len(ns)+7+64 || strings.Contains(got, sig[len(ns):]) {
					t.Errorf("%q → %q, want %s + sha256", sig, got, ns)
				}
				if again := safeSignature(sig, false); again != got {
					t.Errorf("not stable: %q %q", got, again)
				}
			} else if got != want {
				t.Errorf("%q → %q, want %q", sig, got, want)
			}
			if on := safeSignature(sig, true); on != sig {
				t.Errorf("with log_arguments: %q", on)
			}
		})
	}
	if n < 15 {
		t.Fatalf("only %d cases", n)
	}
}

func TestArgText(t *testing.T) {
	cases := []struct {
		name    string
		args    string
		command string
		paths   []string
	}{
		{"shell", `{"command":"npm test","cwd":"/w"}`, "npm test", []string{"/w"}},
		{"a write: the path, never the content", `{"path":"a.txt","content":"SECRET"}`, "", []string{"a.txt"}},
		{"a patch: never the patch", `{"patch":"--- a\n+++ b\n+SECRET"}`, "", nil},
		{"a list of paths", `{"paths":["b","a"]}`, "", []string{"a", "b"}},
		{"not an object", `[1,2]`, "", nil},
		{"not JSON", `{`, "", nil},
		{"a url", `{"action":"navigate","url":"https://example.com/x"}`, "", []string{"https://example.com/x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd, paths := argText(json.RawMessage(c.args))
			if cmd != c.command || !reflect.DeepEqual(paths, c.paths) {
				t.Errorf("(%q, %q), want (%q, %q)", cmd, paths, c.command, c.paths)
			}
			if strings.Contains(cmd+strings.Join(paths, ""), "SECRET") {
				t.Error("content leaked")
			}
		})
	}
}
