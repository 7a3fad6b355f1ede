package config

import (
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestMergeTelemetry runs the cases of testdata/telemetry/cases.toml: the
// organisation's and the user's [telemetry] tables and what comes out.
func TestMergeTelemetry(t *testing.T) {
	data, err := os.ReadFile("testdata/telemetry/cases.toml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Case []struct {
			Name         string         `toml:"name"`
			Org          *string        `toml:"org"`
			User         *string        `toml:"user"`
			Want         map[string]any `toml:"want"`
			WantError    string         `toml:"want_error"`
			WantWarnings []string       `toml:"want_warnings"`
		} `toml:"case"`
	}
	if _, err := toml.Decode(string(data), &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Case) < 20 {
		t.Fatalf("only %d cases", len(file.Case))
	}
	section := func(t *testing.T, s *string) *TelemetrySection {
		if s == nil {
			return nil
		}
		var ts TelemetrySection
		md, err := toml.Decode(*s, &ts)
		if err != nil {
			t.Fatal(err)
		}
		if len(md.Undecoded()) > 0 {
			t.Fatalf("unknown keys %v", md.Undecoded())
		}
		return &ts
	}
	for _, c := range file.Case {
		t.Run(c.Name, func(t *testing.T) {
			got, warns, err := MergeTelemetry(section(t, c.Org), section(t, c.User), "config.toml")
			if c.WantError != "" {
				if err == nil || !strings.Contains(err.Error(), c.WantError) {
					t.Fatalf("error %v, want one containing %q", err, c.WantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.WantWarnings {
				found := false
				for _, have := range warns {
					found = found || strings.Contains(have, w)
				}
				if !found {
					t.Errorf("no warning contains %q: %q", w, warns)
				}
			}
			if len(c.WantWarnings) == 0 && len(warns) > 0 {
				t.Errorf("unexpected warnings %q", warns)
			}
			for k, v := range c.Want {
				var have any
				switch k {
				case "enabled":
					have = got.Enabled
				case "endpoint":
					have = got.Endpoint
				case "log_arguments":
					have = got.LogArguments
				case "metrics":
					have = got.Metrics
				case "user_name":
					have = got.UserName
				case "required":
					have = got.Required
				case "outbox_max_records":
					have = got.OutboxMaxRecs
				case "outbox_max_age":
					have = got.OutboxMaxAge.String()
				case "headers":
					hm := map[string]any{}
					for hk, hv := range got.Headers {
						hm[hk] = hv
					}
					have = hm
				default:
					t.Fatalf("unknown want key %q", k)
				}
				if !equalLoose(have, v) {
					t.Errorf("%s = %v, want %v", k, have, v)
				}
			}
		})
	}
}

func equalLoose(a, b any) bool {
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if y[k] != v {
				return false
			}
		}
		return true
	}
	return a == b
}

// TestTelemetryInFiles: the user's file sets [telemetry]; a workspace's
// cannot (it would choose where the audit goes, or stop it).
func TestTelemetryInFiles(t *testing.T) {
	dir := t.TempDir()
	user := dir + "/config.toml"
	ws := dir + "/ws"
	os.MkdirAll(ws+"/.warden", 0o755)
	os.WriteFile(user, []byte("[telemetry]\nendpoint = \"https://otel.example.com:4318\"\n"), 0o600)
	os.WriteFile(ws+"/.warden/config.toml", []byte("[telemetry]\nenabled = false\n"), 0o644)
	c, err := Load(user, ws)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Telemetry.Enabled || c.Telemetry.Endpoint != "https://otel.example.com:4318" || c.TelemetryUser == nil {
		t.Fatalf("telemetry %+v", c.Telemetry)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "[telemetry] is ignored in a workspace file") {
		t.Errorf("warnings %q", c.Warnings)
	}
	os.WriteFile(user, []byte("[telemetry]\nendpoint = \"https://x:4318\"\nlog_argument = true\n"), 0o600)
	if _, err := Load(user, ""); err == nil || !strings.Contains(err.Error(), "telemetry.log_argument") {
		t.Fatalf("a typo in [telemetry]: %v", err)
	}
}
