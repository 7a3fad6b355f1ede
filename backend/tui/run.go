package tui

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Run shows the model in the terminal until the user quits, ctx ends, or a
// SIGTERM or SIGHUP arrives. Every way out — a panic included — goes
// through bubbletea's shutdown, which restores the terminal (raw mode off,
// main screen back, cursor shown). It returns the error that kept the
// session from opening, when one did.
func Run(ctx context.Context, m *Model) (err error) {
	defer m.Close()
	// lipgloss detected the terminal's colours at package init (inside tmux
	// that runs `tmux info`, tens of ms); the program reuses that answer
	// instead of running the same detection again before the first frame.
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithColorProfile(lipgloss.Writer.Profile))
	// SIGTERM is bubbletea's own; a closed ssh connection sends SIGHUP,
	// which would otherwise kill the process with the terminal raw.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		select {
		case <-hup:
			p.Quit()
		case <-ctx.Done():
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			_ = p.RestoreTerminal()
			err = fmt.Errorf("tui: panic: %v", r)
		}
	}()
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("tui: %w", err)
	}
	// The screen showed why the session could not open; the caller says it
	// again on the restored terminal and exits non-zero.
	return m.Err()
}
