package computer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Keysym is an X11 keysym (X11/keysymdef.h).
type Keysym uint32

// Modifier keysyms, pressed before and released after the main key.
const (
	ksShiftL   Keysym = 0xffe1
	ksControlL Keysym = 0xffe3
	ksAltL     Keysym = 0xffe9
	ksSuperL   Keysym = 0xffeb
	ksReturn   Keysym = 0xff0d
	ksTab      Keysym = 0xff09
)

var modifierNames = map[string]Keysym{
	"ctrl": ksControlL, "control": ksControlL,
	"shift": ksShiftL,
	"alt":   ksAltL, "meta": ksAltL, "option": ksAltL,
	"super": ksSuperL, "win": ksSuperL, "cmd": ksSuperL, "command": ksSuperL,
}

var keyNames = map[string]Keysym{
	"return": ksReturn, "enter": ksReturn, "tab": ksTab,
	"escape": 0xff1b, "esc": 0xff1b, "backspace": 0xff08, "delete": 0xffff, "del": 0xffff,
	"insert": 0xff63, "home": 0xff50, "end": 0xff57,
	"pageup": 0xff55, "page_up": 0xff55, "pgup": 0xff55,
	"pagedown": 0xff56, "page_down": 0xff56, "pgdn": 0xff56,
	"left": 0xff51, "up": 0xff52, "right": 0xff53, "down": 0xff54,
	"space": 0x20, "plus": 0x2b, "minus": 0x2d, "print": 0xff61, "menu": 0xff67,
	"capslock": 0xffe5, "numlock": 0xff7f,
	"ctrl": ksControlL, "shift": ksShiftL, "alt": ksAltL, "super": ksSuperL,
}

// Combo is a key chord: modifiers held while Key is pressed.
type Combo struct {
	Modifiers []Keysym
	Key       Keysym
}

// ParseCombo reads chords like "ctrl+a", "ctrl+shift+T", "alt+F4",
// "Return", "plus" or a single character. Names are case-insensitive; a
// single letter keeps its case, so "ctrl+T" sends shift as a real keyboard
// would.
func ParseCombo(s string) (Combo, error) {
	if strings.TrimSpace(s) == "" {
		return Combo{}, fmt.Errorf("key combo is empty")
	}
	if len(s) > 64 {
		return Combo{}, fmt.Errorf("key combo is too long (%d bytes)", len(s))
	}
	var parts []string
	if s == "+" {
		parts = []string{"+"}
	} else {
		parts = strings.Split(s, "+")
	}
	var c Combo
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return Combo{}, fmt.Errorf("key combo %q has an empty part (write \"plus\" for the + key)", s)
		}
		last := i == len(parts)-1
		if !last {
			m, ok := modifierNames[strings.ToLower(p)]
			if !ok {
				return Combo{}, fmt.Errorf("key combo %q: %q is not a modifier (ctrl, shift, alt, super)", s, p)
			}
			c.Modifiers = append(c.Modifiers, m)
			continue
		}
		k, err := keyByName(p)
		if err != nil {
			return Combo{}, fmt.Errorf("key combo %q: %w", s, err)
		}
		c.Key = k
	}
	return c, nil
}

func keyByName(p string) (Keysym, error) {
	if k, ok := keyNames[strings.ToLower(p)]; ok {
		return k, nil
	}
	if utf8.RuneCountInString(p) == 1 {
		r, _ := utf8.DecodeRuneInString(p)
		return RuneKeysym(r)
	}
	lower := strings.ToLower(p)
	if strings.HasPrefix(lower, "f") {
		if n, err := strconv.Atoi(lower[1:]); err == nil && n >= 1 && n <= 24 {
			return Keysym(0xffbe + n - 1), nil
		}
	}
	return 0, fmt.Errorf("unknown key %q", p)
}

// RuneKeysym maps a character to its keysym: Latin-1 maps to itself, the
// rest of Unicode to 0x01000000+codepoint, newline and tab to their keys.
func RuneKeysym(r rune) (Keysym, error) {
	switch {
	case r == '\n' || r == '\r':
		return ksReturn, nil
	case r == '\t':
		return ksTab, nil
	case r == utf8.RuneError, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return 0, fmt.Errorf("character %q cannot be typed", r)
	case r <= 0xff:
		return Keysym(r), nil
	case r > 0x10ffff:
		return 0, fmt.Errorf("character %q cannot be typed", r)
	}
	return Keysym(0x01000000 + r), nil
}
