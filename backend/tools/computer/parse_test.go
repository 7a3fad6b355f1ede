package computer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestParseAction(t *testing.T) {
	data, err := os.ReadFile("testdata/actions.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Note  string
		Input json.RawMessage
		Error string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Note, func(t *testing.T) {
			_, err := ParseAction(c.Input)
			if c.Error == "" && err != nil {
				t.Fatalf("ParseAction(%s): %v", c.Input, err)
			}
			if c.Error != "" && (err == nil || !strings.Contains(err.Error(), c.Error)) {
				t.Fatalf("ParseAction(%s) error = %v, want one containing %q", c.Input, err, c.Error)
			}
		})
	}
}

func TestParseCombo(t *testing.T) {
	cases := []struct {
		in   string
		mods []Keysym
		key  Keysym
		err  string
	}{
		{"ctrl+a", []Keysym{ksControlL}, 'a', ""},
		{"Ctrl+Shift+t", []Keysym{ksControlL, ksShiftL}, 't', ""},
		{"ctrl+T", []Keysym{ksControlL}, 'T', ""},
		{"alt+F4", []Keysym{ksAltL}, 0xffc1, ""},
		{"super+f12", []Keysym{ksSuperL}, 0xffc9, ""},
		{"Return", nil, ksReturn, ""},
		{"enter", nil, ksReturn, ""},
		{"ctrl+plus", []Keysym{ksControlL}, '+', ""},
		{"+", nil, '+', ""},
		{"shift", nil, ksShiftL, ""},
		{"é", nil, 0xe9, ""},
		{"€", nil, 0x01000000 + '€', ""},
		{"ctrl + c", []Keysym{ksControlL}, 'c', ""},
		{"", nil, 0, "empty"},
		{"ctrl+", nil, 0, "empty part"},
		{"ctrl++", nil, 0, "empty part"},
		{"a+b", nil, 0, "not a modifier"},
		{"ctrl+nosuchkey", nil, 0, "unknown key"},
		{"F25", nil, 0, "unknown key"},
		{"F0", nil, 0, "unknown key"},
		{strings.Repeat("ctrl+", 20) + "a", nil, 0, "too long"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseCombo(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got.Key != c.key || len(got.Modifiers) != len(c.mods) {
				t.Fatalf("ParseCombo(%q) = %+v, %v; want mods %v key %#x", c.in, got, err, c.mods, c.key)
			}
			for i := range c.mods {
				if got.Modifiers[i] != c.mods[i] {
					t.Fatalf("modifier %d = %#x, want %#x", i, got.Modifiers[i], c.mods[i])
				}
			}
		})
	}
}

func FuzzParseCombo(f *testing.F) {
	for _, s := range []string{"ctrl+a", "+", "ctrl++", "alt+F4", "é", "shift+Return"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCombo(s)
		if err != nil {
			return
		}
		if c.Key == 0 {
			t.Fatalf("ParseCombo(%q) accepted with no key", s)
		}
	})
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{`{"action":"click","x":1,"y":2}`, `{"action":"type","text":"a"}`, `{"action":"scroll","direction":"up"}`, `{"action":"key","combo":"ctrl+a"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAction(json.RawMessage(s))
		if err != nil {
			return
		}
		// What ParseAction accepts, perform must be able to use blindly.
		if (a.X == nil) != (a.Y == nil) {
			t.Fatalf("half a point accepted: %q", s)
		}
		switch a.Action {
		case ActClick, ActDoubleClick:
			if _, ok := buttons[a.Button]; !ok {
				t.Fatalf("button %q accepted", a.Button)
			}
		case ActScroll:
			if _, ok := scrollButtons[a.Direction]; !ok || a.Amount < 1 {
				t.Fatalf("scroll %+v accepted", a)
			}
		case ActKey:
			if _, err := ParseCombo(a.Combo); err != nil {
				t.Fatalf("combo %q accepted: %v", a.Combo, err)
			}
		case ActType:
			for _, r := range a.Text {
				if _, err := RuneKeysym(r); err != nil {
					t.Fatalf("text %q accepted: %v", a.Text, err)
				}
			}
		}
	})
}
