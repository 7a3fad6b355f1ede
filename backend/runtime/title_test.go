package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/store"
)

func TestTitleFrom(t *testing.T) {
	long := strings.Repeat("word ", 30)
	cases := []struct{ name, in, want string }{
		{"a short request", "fix the failing test", "fix the failing test"},
		{"first line only", "clean up the build folder\nthen run make", "clean up the build folder"},
		{"blank lines skipped", "\n\n   \nadd a README", "add a README"},
		{"markdown heading marks dropped", "## Plan: migrate the store", "Plan: migrate the store"},
		{"list and quote marks dropped", "> - please rename foo", "please rename foo"},
		{"code ticks dropped", "`make test` fails", "make test` fails"},
		{"spaces collapsed", "fix    the\ttest", "fix the test"},
		{"control and bidi characters dropped", "fix\u202e the\u200b test\u0007", "fix the test"},
		{"long text cut at a word", long, strings.TrimSpace(strings.Repeat("word ", 12)) + "…"},
		{"one long word cut hard", strings.Repeat("x", 80), strings.Repeat("x", 60) + "…"},
		{"only marks", "### ---", ""},
		{"empty", "", ""},
		{"unicode kept", "übersetze die Datei 日本語", "übersetze die Datei 日本語"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TitleFrom(c.in); got != c.want {
				t.Errorf("TitleFrom(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func FuzzTitleFrom(f *testing.F) {
	for _, s := range []string{"fix it", "a\nb", "\u202e", strings.Repeat("é", 100), "#", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := TitleFrom(s)
		if utf8.RuneCountInString(got) > maxTitle+1 {
			t.Fatalf("%d characters: %q", utf8.RuneCountInString(got), got)
		}
		if strings.ContainsAny(got, "\n\r\t\u202e\u200b") {
			t.Fatalf("control or invisible character left: %q", got)
		}
		if got != strings.TrimSpace(got) {
			t.Fatalf("untrimmed: %q", got)
		}
	})
}

// A session nobody named takes its first message as its title (pushed to
// the windows); a named one keeps its name; a later message changes nothing.
// The assistant's message keeps what the provider said it cost.
func TestAutoTitleAndUsage(t *testing.T) {
	srv := newSSEServer(t, "5_done.sse", "5_done.sse", "5_done.sse", "5_done.sse")
	r := newRig(t, anthropicProvider(t, srv.URL), nil)
	ctx := context.Background()
	s := r.session(nil)
	if err := r.svc.Run(ctx, s.ID, "Clean up the build folder\nand tell me what you removed"); err != nil {
		t.Fatal(err)
	}
	got, err := r.svc.GetSession(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Clean up the build folder" {
		t.Fatalf("title %q after the first message", got.Title)
	}
	if got.FirstMessage != "Clean up the build folder\nand tell me what you removed" {
		t.Fatalf("first message %q", got.FirstMessage)
	}
	if err := r.svc.Run(ctx, s.ID, "now something else"); err != nil {
		t.Fatal(err)
	}
	if got, _ = r.svc.GetSession(ctx, s.ID); got.Title != "Clean up the build folder" {
		t.Fatalf("a second message retitled the session: %q", got.Title)
	}
	named := r.session(func(a *CreateSessionArgs) { a.Title = "my title" })
	if err := r.svc.Run(ctx, named.ID, "Clean up"); err != nil {
		t.Fatal(err)
	}
	if got, _ = r.svc.GetSession(ctx, named.ID); got.Title != "my title" {
		t.Fatalf("a named session was retitled: %q", got.Title)
	}
	// A command the human ran first does not name the session; the first
	// prompt after it does.
	bang := r.session(nil)
	if err := r.svc.Run(ctx, bang.ID, "!ls"); err != nil {
		t.Fatal(err)
	}
	if got, _ = r.svc.GetSession(ctx, bang.ID); got.Title != filepath.Base(r.ws) || got.FirstMessage != "" {
		t.Fatalf("after !ls: title %q, first message %q", got.Title, got.FirstMessage)
	}
	if err := r.svc.Run(ctx, bang.ID, "summarise the README"); err != nil {
		t.Fatal(err)
	}
	if got, _ = r.svc.GetSession(ctx, bang.ID); got.Title != "summarise the README" {
		t.Fatalf("after the first prompt: title %q", got.Title)
	}
	var usage *store.Usage
	for _, e := range r.events(s.ID, store.KindMessageAppended) {
		if m := e.Event.(store.MessageAppended); m.Role == "assistant" {
			usage = m.Usage
		}
	}
	if usage == nil || usage.InputTokens != 100 || usage.OutputTokens != 20 || usage.ContextTokens != 100 {
		t.Fatalf("assistant usage %+v, want 100 in, 20 out, context 100", usage)
	}
}
