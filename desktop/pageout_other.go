//go:build !linux

package desktop

// ReleaseStartupPages has nothing to do where MADV_PAGEOUT does not exist.
func ReleaseStartupPages() error { return nil }
