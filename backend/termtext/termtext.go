package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/warden-dev/warden/backend/reveal"
)

// Badge is the visible form of a character reveal.InvisibleName names:
// "⟨U+202E⟩", the badge the window, the TUI and the remote page show.
func Badge(r rune) string { return "⟨" + reveal.CodePointLabel(r) + "⟩" }

// picture is what Visible prints for r, or "" when r prints as itself.
func picture(r rune) string {
	switch {
	case r == '\n' || r == '\t':
		return ""
	case r < 0x20:
		return string(rune(0x2400 + r)) // ␀ … ␟, ␛ for ESC
	case r == 0x7f:
		return "␡"
	case reveal.InvisibleName(r) != "":
		return Badge(r)
	}
	return ""
}

// Visible is s with every control, escape, bidi and invisible character
// shown as a picture of itself (see the package doc).
func Visible(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	appendVisible(&b, s, true)
	return b.String()
}

// clean says s holds nothing Visible would change (the common case: no
// allocation).
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			return false
		}
	}
	return true
}

// appendVisible writes the visible form of s. final says s ends the text:
// otherwise an incomplete UTF-8 sequence at its end is the caller's to keep
// (Writer).
func appendVisible(b *strings.Builder, s string, final bool) (rest int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
				// CRLF: the CR does nothing a newline would not.
			case c == '\r' && i+1 == len(s) && !final:
				return len(s) - i // a CRLF may be split across writes
			default:
				if p := picture(rune(c)); p != "" {
					b.WriteString(p)
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			if !final && !utf8.FullRuneInString(s[i:]) {
				return len(s) - i
			}
			fmt.Fprintf(b, "⟨0x%02X⟩", c)
			i++
			continue
		}
		if p := picture(r); p != "" {
			b.WriteString(p)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return 0
}

// Writer shows everything written through it with Visible, keeping a
// UTF-8 sequence (or a CR) split across writes whole. Close (or Flush)
// writes what is held back.
type Writer struct {
	w    io.Writer
	held []byte
}

// NewWriter returns a Writer that writes the visible form to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write implements io.Writer; it reports len(p) once the visible form is
// written.
func (t *Writer) Write(p []byte) (int, error) {
	s := string(append(t.held, p...))
	t.held = t.held[:0]
	var b strings.Builder
	rest := appendVisible(&b, s, false)
	t.held = append(t.held, s[len(s)-rest:]...)
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a previous Write held back, as if the text ended there.
func (t *Writer) Flush() error {
	if len(t.held) == 0 {
		return nil
	}
	var b strings.Builder
	appendVisible(&b, string(t.held), true)
	t.held = t.held[:0]
	_, err := io.WriteString(t.w, b.String())
	return err
}

// Close flushes; it does not close the underlying writer.
func (t *Writer) Close() error { return t.Flush() }
