// Package termtext turns text that came from a tool, a model or a file name
// into text a terminal shows and never obeys.
//
// A terminal reads some characters as commands: ESC starts sequences that
// move the cursor, clear the screen (CSI 2J), set the clipboard (OSC 52),
// retitle the window or rewrite the lines above ("allowed", "ran"); a bare
// CR returns to the start of the line and overwrites it; C1 controls are
// 8-bit forms of the same; bidi controls (U+202E) reorder what is shown.
// Visible replaces each with a picture of itself, so the human sees that it
// was there and nothing happens: C0 controls become the Unicode control
// pictures (ESC is ␛, NUL ␀, CR ␍), DEL is ␡, and C1, bidi and invisible
// characters become a badge naming the code point (⟨U+202E⟩), the badge the
// window, the TUI and the remote page show (backend/reveal's InvisibleName
// is their one table). Newline and tab stay; CR directly before a newline
// is dropped (a CRLF line end does nothing harmful). Bytes that are not UTF-8 show as ⟨0xNN⟩.
//
// Only what is printed changes: the stored events and results keep the
// bytes the tool produced.
package termtext
