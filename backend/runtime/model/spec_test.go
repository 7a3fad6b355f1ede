package model

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

func TestParseModelSpec(t *testing.T) {
	f, err := os.Open("testdata/specs.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 && len(cols) != 4 {
			t.Fatalf("bad fixture line %q", line)
		}
		n++
		t.Run(cols[0], func(t *testing.T) {
			got, err := ParseModelSpec(cols[0])
			if cols[1] == "error" {
				if err == nil || !strings.Contains(err.Error(), cols[2]) {
					t.Fatalf("ParseModelSpec(%q) = %+v, %v; want error with %q", cols[0], got, err, cols[2])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Provider != cols[1] || got.Model != cols[2] {
				t.Errorf("ParseModelSpec(%q) = %+v, want %s/%s", cols[0], got, cols[1], cols[2])
			}
			if want := len(cols) == 4 && cols[3] == "text-only"; got.TextOnly != want {
				t.Errorf("ParseModelSpec(%q).TextOnly = %v, want %v", cols[0], got.TextOnly, want)
			}
			again, err := ParseModelSpec(got.String())
			if err != nil || again != got {
				t.Errorf("String round trip: %q → %+v, %v", got.String(), again, err)
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d cases read", n)
	}
}

func FuzzParseModelSpec(f *testing.F) {
	for _, s := range []string{"anthropic:claude-sonnet-4-5", "openai:llama3.1:8b", "script:x.json", "demo", "", ":", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseModelSpec(s)
		if err != nil {
			return
		}
		switch sp.Provider {
		case KindAnthropic, KindOpenAI, KindScript:
			if sp.Model == "" {
				t.Fatalf("%q parsed with an empty model", s)
			}
		case KindDemo:
		default:
			t.Fatalf("%q parsed to provider %q", s, sp.Provider)
		}
		again, err := ParseModelSpec(sp.String())
		if err != nil || again != sp {
			t.Fatalf("round trip of %q: %+v, %v", s, again, err)
		}
	})
}
