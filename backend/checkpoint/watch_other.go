//go:build !linux

package checkpoint

import "errors"

// Without inotify every snapshot is a full scan by git.
type watcher struct{}

var errWatchLimit = errors.New("watch limit")

func newWatcher(string) (*watcher, error) {
	return nil, errors.New("change notification is implemented for Linux (inotify) only")
}
func (w *watcher) close()                                  {}
func (w *watcher) watched(string) bool                     { return false }
func (w *watcher) add(string) error                        { return errWatchLimit }
func (w *watcher) remove(string)                           {}
func (w *watcher) drain(map[string]struct{}) (bool, error) { return true, nil }
func remoteKind(string) string                             { return "" }
