package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/warden-dev/warden/backend/store"
)

// A session nobody named is titled by its first message, so a list of
// sessions (the sidebar, the palette, `warden tui`'s sessions) reads as
// what each was about, not as a row of folder names.

// maxTitle is the longest auto title, in characters, before "…".
const maxTitle = 60

// untitled reports a session that still has the title CreateSession gave
// it (its folder's name): no rename and no prompt yet (a `!` command the
// human ran does not name a conversation).
func (s *Service) untitled(ctx context.Context, ss store.Session) bool {
	if ss.ParentID != "" || ss.Title != filepath.Base(ss.Workspace) {
		return false
	}
	renamed, err := s.st.Events(ctx, store.EventQuery{SessionID: ss.ID, Kinds: []store.Kind{store.KindSessionRenamed}, Limit: 1})
	if err != nil || len(renamed) > 0 {
		return false
	}
	first, err := s.firstPrompt(ctx, ss.ID)
	return err == nil && first == ""
}

// promptScan bounds how many early messages firstPrompt reads.
const promptScan = 40

// firstPrompt is the session's first message to the model ("" before
// one): what the palette searches besides the title.
func (s *Service) firstPrompt(ctx context.Context, sessionID string) (string, error) {
	evs, err := s.st.Events(ctx, store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindMessageAppended}, Limit: promptScan})
	if err != nil {
		return "", err
	}
	for _, e := range evs {
		if m, ok := e.Event.(store.MessageAppended); ok && m.Role == "user" && !strings.HasPrefix(strings.TrimSpace(m.Text), "!") {
			return m.Text, nil
		}
	}
	return "", nil
}

// firstMessageView is the first prompt as a session view carries it: its
// first lines, at most maxFirstMessage characters.
func firstMessageView(text string) string {
	if r := []rune(text); len(r) > maxFirstMessage {
		return string(r[:maxFirstMessage]) + "…"
	}
	return text
}

const maxFirstMessage = 280

// autoTitle renames the session after its first message; a failure leaves
// the folder name, which is a fine title too.
func (s *Service) autoTitle(ctx context.Context, sessionID, text string) {
	title := TitleFrom(text)
	if title == "" {
		return
	}
	if ss, err := s.st.RenameSession(ctx, sessionID, title); err == nil {
		s.publishSession(ctx, ss)
	}
}

// TitleFrom is a title made of a message: its first line with text in it,
// Markdown marks and control characters dropped, spaces collapsed, cut at a
// word to at most maxTitle characters.
func TitleFrom(text string) string {
	var line string
	for _, l := range strings.Split(text, "\n") {
		l = strings.Map(func(r rune) rune {
			switch {
			case unicode.IsSpace(r):
				return ' '
			case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
				return -1
			}
			return r
		}, l)
		l = strings.TrimLeft(strings.TrimSpace(l), "#>*-+` ")
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			line = l
			break
		}
	}
	line = strings.Trim(line, "`*_ ")
	r := []rune(line)
	if len(r) <= maxTitle {
		return line
	}
	cut := string(r[:maxTitle])
	if i := strings.LastIndexByte(cut, ' '); i > maxTitle/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}
