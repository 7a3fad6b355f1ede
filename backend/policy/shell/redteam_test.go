package shell

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

type redCase struct {
	class, name, want, cmd string
	line                   int
}

func loadRedTeam(t testing.TB) []redCase {
	t.Helper()
	f, err := os.Open("testdata/redteam.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []redCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.SplitN(line, "\t", 4)
		if len(p) != 4 {
			t.Fatalf("redteam.tsv:%d: want class<TAB>name<TAB>want<TAB>command", n)
		}
		cases = append(cases, redCase{p[0], p[1], p[2], p[3], n})
	}
	return cases
}

// TestRedTeamClasses runs the classifier on the classes of false
// allows, each with its own spellings.
func TestRedTeamClasses(t *testing.T) {
	perClass := map[string]int{}
	for _, c := range loadRedTeam(t) {
		perClass[c.class]++
		t.Run(c.class+"/"+c.name, func(t *testing.T) {
			got := Classify(c.cmd, testCwd)
			ok := false
			switch c.want {
			case "!read-only":
				ok = got.Class != ClassReadOnly
			case "network+":
				ok = got.Network || got.Class == ClassDestructive
			default:
				want, err := ParseClass(c.want)
				if err != nil {
					t.Fatal(err)
				}
				ok = got.Class == want
			}
			if !ok {
				t.Errorf("%q = %s, want %s\n  unknown=%q destructive=%q writes=%q network=%v hosts=%q",
					c.cmd, got.Class, c.want, got.Unknown, got.Destructive, got.Writes, got.Network, got.Hosts)
			}
		})
	}
	for _, cl := range []string{"1", "2", "3", "4", "5"} {
		if perClass[cl] < 15 {
			t.Errorf("class %s has %d cases, want at least 15", cl, perClass[cl])
		}
	}
}
