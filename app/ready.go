package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ReadyMarker is the JSON FrontendReady writes. The desktop smoke test reads
// it to know the frontend mounted and reached the Go side.
type ReadyMarker struct {
	PID     int       `json:"pid"`
	Version string    `json:"version"`
	At      time.Time `json:"at"`
}

// FrontendReady is called by the frontend once its shell has mounted. It
// writes the ready marker when one was configured; otherwise it does nothing.
func (a *App) FrontendReady() error {
	if a.readyFile == "" {
		return nil
	}
	body, err := json.Marshal(ReadyMarker{PID: os.Getpid(), Version: a.version, At: a.now().UTC()})
	if err != nil {
		return fmt.Errorf("encode ready marker: %w", err)
	}
	// Write then rename, so a reader never sees a half-written marker.
	dir := filepath.Dir(a.readyFile)
	tmp, err := os.CreateTemp(dir, ".warden-ready-*")
	if err != nil {
		return fmt.Errorf("write ready marker: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(body, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write ready marker: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write ready marker: %w", err)
	}
	if err := os.Rename(tmp.Name(), a.readyFile); err != nil {
		return fmt.Errorf("write ready marker: %w", err)
	}
	return nil
}
