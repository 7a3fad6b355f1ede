package tui

import "charm.land/lipgloss/v2"

// theme holds every style of the screen in one place. Colours are dropped
// on output by the terminal's colour profile (NO_COLOR, a dumb terminal),
// so nothing here may carry meaning by colour alone: risky lines have a
// marker, diffs keep their +/- and the modal has a title and a frame.
type theme struct {
	plain, bold, dim, italic, code, link, heading, quote   lipgloss.Style
	user, assistant, system, tool, ok, bad, warn, add, del lipgloss.Style
	status, statusAxis, modalBorder, modalTitle, risky     lipgloss.Style
	badge, selected                                        lipgloss.Style
}

func newTheme() theme {
	s := lipgloss.NewStyle
	return theme{
		plain:       s(),
		bold:        s().Bold(true),
		dim:         s().Faint(true),
		italic:      s().Italic(true),
		code:        s().Foreground(lipgloss.Color("215")),
		link:        s().Underline(true).Foreground(lipgloss.Color("75")),
		heading:     s().Bold(true).Foreground(lipgloss.Color("111")),
		quote:       s().Italic(true).Foreground(lipgloss.Color("246")),
		user:        s().Bold(true).Foreground(lipgloss.Color("81")),
		assistant:   s().Bold(true).Foreground(lipgloss.Color("150")),
		system:      s().Foreground(lipgloss.Color("180")),
		tool:        s().Foreground(lipgloss.Color("147")),
		ok:          s().Foreground(lipgloss.Color("114")),
		bad:         s().Foreground(lipgloss.Color("203")),
		warn:        s().Foreground(lipgloss.Color("221")),
		add:         s().Foreground(lipgloss.Color("114")),
		del:         s().Foreground(lipgloss.Color("203")),
		status:      s().Background(lipgloss.Color("236")).Foreground(lipgloss.Color("252")),
		statusAxis:  s().Background(lipgloss.Color("236")).Foreground(lipgloss.Color("229")).Bold(true),
		modalBorder: s().Foreground(lipgloss.Color("221")),
		modalTitle:  s().Bold(true).Foreground(lipgloss.Color("221")),
		risky:       s().Bold(true).Foreground(lipgloss.Color("203")),
		badge:       s().Reverse(true),
		selected:    s().Reverse(true),
	}
}
