package readme

import (
	"os"
	"reflect"
	"testing"
)

func TestCommands(t *testing.T) {
	doc := "# T\n\nRun `make run` first, then `xvfb-run -a make run`; `npm install` is an example, `ls` too; `warden` and `sudo` are names.\n" +
		"Set `ANTHROPIC_API_KEY=sk-… make run` or `OPENAI_API_KEY=…`.\n\n" +
		"```sh\nmake test   # every check\n\n# a comment\n$ bin/warden audit verify\necho '# not a comment'\n```\n\n" +
		"```toml\nmake = \"no\"\n```\n\n" +
		"1. Item:\n\n   ```sh\n   bin/warden --help\n   ```\n"
	got := Commands(doc)
	want := []Command{
		{Line: 3, Text: "make run", Inline: true},
		{Line: 3, Text: "xvfb-run -a make run", Inline: true},
		{Line: 4, Text: "ANTHROPIC_API_KEY=sk-… make run", Inline: true},
		{Line: 7, Text: "make test"},
		{Line: 10, Text: "bin/warden audit verify"},
		{Line: 11, Text: "echo '# not a comment'"},
		{Line: 21, Text: "bin/warden --help"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Commands:\n got %+v\nwant %+v", got, want)
	}
}

// The README this repository ships has commands, each of which the
// `readme` test knows how to run (TestReadmeCommands fails on one it does
// not); here only that the extraction finds the quick start's.
func TestReadmeHasTheQuickStart(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, c := range Commands(string(raw)) {
		found[c.Text] = true
	}
	for _, w := range []string{"make run", "make test"} {
		if !found[w] {
			t.Errorf("README.md has no %q command", w)
		}
	}
}
