package settings_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/settings"
)

func TestSaveNetwork(t *testing.T) {
	r := newRig(t, "")
	writeConfig(t, r.path, "# my settings\n[sandbox]\nmode = \"bwrap\"\n\n[defaults]\nnetwork = true\n")
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		args    settings.NetworkArgs
		err     string
		enabled []string
		allow   []string
	}{
		{name: "presets and patterns", args: settings.NetworkArgs{Enabled: []string{"npm", "github"}, Allow: []string{" registry.example.com ", "registry.example.com"}, Deny: []string{"*.doubleclick.net"}},
			enabled: []string{"npm", "github"}, allow: []string{"registry.example.com"}},
		{name: "a bad pattern is refused", args: settings.NetworkArgs{Allow: []string{"https://registry.example.com"}}, err: "no scheme"},
		{name: "an unknown preset is refused", args: settings.NetworkArgs{Enabled: []string{"cpan"}}, err: `preset "cpan" is unknown`},
		{name: "clearing everything", args: settings.NetworkArgs{}, enabled: []string{}, allow: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fileOrNone(r.path)
			s, err := r.g.Settings.SaveNetwork(ctx, tc.args)
			if tc.err != "" {
				if !errors.Is(err, settings.ErrInvalid) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want invalid %q", err, tc.err)
				}
				if fileOrNone(r.path) != before {
					t.Fatal("a refused save changed the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(s.Network.Enabled, ",") != strings.Join(tc.enabled, ",") || strings.Join(s.Network.Allow, ",") != strings.Join(tc.allow, ",") {
				t.Fatalf("view %+v", s.Network)
			}
			if len(s.Network.Presets) != len(config.NetworkPresets()) {
				t.Fatalf("presets offered: %+v", s.Network.Presets)
			}
			text := fileOrNone(r.path)
			if !strings.Contains(text, "[sandbox]") || !strings.Contains(text, "network = true") {
				t.Fatalf("the other tables were lost:\n%s", text)
			}
			cfg, err := config.Load(r.path, "")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(cfg.Network.Presets, ",") != strings.Join(tc.enabled, ",") {
				t.Fatalf("file presets %v:\n%s", cfg.Network.Presets, text)
			}
		})
	}
}
