package settings

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzValidModel: whatever the screen sends, validation answers with a
// spec that the model package parses, or with ErrInvalid, never a panic.
func FuzzValidModel(f *testing.F) {
	f.Add("openai", "llama3.1:8b", "http://127.0.0.1:11434/v1", "sk-x", false)
	f.Add("anthropic", "claude-sonnet-4-5", "", "", true)
	f.Add("demo", "", "https://u:p@host/", "", false)
	f.Add("script", "testdata/script.json", "", "", false)
	f.Fuzz(func(t *testing.T, provider, modelName, base, key string, clear bool) {
		a := ModelArgs{Provider: provider, Model: modelName, BaseURL: base, APIKey: key, ClearAPIKey: clear}
		spec, err := validModel(&a)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		if providerOf(spec) != a.Provider {
			t.Fatalf("spec %q does not parse back to %q", spec, a.Provider)
		}
		if a.BaseURL != "" {
			u, err := url.Parse(a.BaseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
				t.Fatalf("accepted base URL %q", a.BaseURL)
			}
		}
		if strings.ContainsAny(a.APIKey, " \n\r\t") {
			t.Fatalf("accepted key %q", a.APIKey)
		}
	})
}
