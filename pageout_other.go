//go:build !linux

package main

// releaseStartupPages has nothing to do where MADV_PAGEOUT does not exist.
func releaseStartupPages() error { return nil }
