package script

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any input either fails with an error or yields a script that
// validates again after a JSON round trip; it never panics.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(DemoJSON())
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		for _, turn := range s.Turns {
			for _, c := range turn.ToolCalls {
				if c.ID == "" || !json.Valid(c.Args) || c.Args[0] != '{' {
					t.Fatalf("parsed call %+v", c)
				}
			}
		}
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(again); err != nil {
			t.Fatalf("round trip: %v\n%s", err, again)
		}
	})
}
