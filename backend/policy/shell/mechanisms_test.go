package shell

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// mechCase is one line of testdata/mechanisms.jsonl: a command of one class
// of issue 31 (an attack, or its legitimate twin), the disk it sees, and
// what the classification must say about it.
type mechCase struct {
	Class string `json:"c"`
	Name  string `json:"n"`
	Cmd   string `json:"cmd"`
	// Cwd defaults to testCwd; Links are the symbolic links on disk.
	Cwd   string            `json:"cwd"`
	Links map[string]string `json:"links"`
	// Want is a class, "!read-only", or "network+" (network or worse).
	Want string `json:"want"`
	// Twin marks a legitimate command the attack class must not catch.
	Twin bool `json:"twin"`
	// Writes, LinksOut and Env must each appear in the classification;
	// NotWrites must not.
	Writes    []string `json:"writes"`
	NotWrites []string `json:"not_writes"`
	LinksOut  []string `json:"links_out"`
	Env       []string `json:"env"`
	// Sig, when set, is the exact signature.
	Sig string `json:"sig"`
}

func loadMechanisms(t testing.TB) []mechCase {
	t.Helper()
	data, err := os.ReadFile("testdata/mechanisms.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []mechCase
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c mechCase
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("mechanisms.jsonl:%d: %v", i+1, err)
		}
		if c.Class == "" || c.Name == "" || c.Cmd == "" || c.Want == "" && c.Sig == "" {
			t.Fatalf("mechanisms.jsonl:%d: c, n, cmd and want (or sig) are required", i+1)
		}
		out = append(out, c)
	}
	return out
}

// mechClasses are the classes of issue 31 items 2 and 3; each needs at
// least 15 attacks of its own and some legitimate twins.
var mechClasses = []string{"paths", "state", "config", "pipe-output", "links", "wrappers", "dirtarget",
	"own-output", "inner", "listings", "env", "git", "signatures"}

func TestMechanisms(t *testing.T) {
	attacks, twins := map[string]int{}, map[string]int{}
	names := map[string]bool{}
	for _, c := range loadMechanisms(t) {
		key := c.Class + "/" + c.Name
		if names[key] {
			t.Errorf("%s: duplicate name", key)
		}
		names[key] = true
		if c.Twin {
			twins[c.Class]++
		} else {
			attacks[c.Class]++
		}
		t.Run(key, func(t *testing.T) {
			cwd := c.Cwd
			if cwd == "" {
				cwd = testCwd
			}
			got := ClassifyWith(c.Cmd, cwd, c.Links)
			if c.Want != "" && !classMatches(got, c.Want) {
				t.Errorf("%q = %s, want %s\n  unknown=%q destructive=%q writes=%q links=%q network=%v",
					c.Cmd, got.Class, c.Want, got.Unknown, got.Destructive, got.Writes, got.Links, got.Network)
			}
			for _, p := range c.Writes {
				if !slices.Contains(got.Writes, p) {
					t.Errorf("%q: writes %q, want %s among them", c.Cmd, got.Writes, p)
				}
			}
			for _, p := range c.NotWrites {
				if slices.Contains(got.Writes, p) {
					t.Errorf("%q: writes %q, must not write %s", c.Cmd, got.Writes, p)
				}
			}
			for _, p := range c.LinksOut {
				if !slices.Contains(got.Links, p) {
					t.Errorf("%q: links %q, want %s among them", c.Cmd, got.Links, p)
				}
			}
			for _, e := range c.Env {
				if !slices.Contains(got.Env, e) {
					t.Errorf("%q: env %q, want %s", c.Cmd, got.Env, e)
				}
			}
			if c.Sig != "" && got.Signature != c.Sig {
				t.Errorf("%q: signature %q, want %q", c.Cmd, got.Signature, c.Sig)
			}
		})
	}
	for _, cl := range mechClasses {
		if attacks[cl] < 15 {
			t.Errorf("class %s has %d cases, want at least 15", cl, attacks[cl])
		}
		if twins[cl] < 3 {
			t.Errorf("class %s has %d legitimate twins, want at least 3", cl, twins[cl])
		}
	}
	for cl := range attacks {
		if !slices.Contains(mechClasses, cl) {
			t.Errorf("unknown class %q", cl)
		}
	}
}

func classMatches(got Classification, want string) bool {
	switch want {
	case "!read-only":
		return got.Class != ClassReadOnly
	case "network+":
		return got.Network || got.Class == ClassDestructive || got.Class == ClassUnknown
	case "ask":
		// Asked in every sandbox and cage: destructive.
		return got.Class == ClassDestructive
	}
	w, err := ParseClass(want)
	return err == nil && got.Class == w
}
