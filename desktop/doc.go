// Package desktop owns what only the desktop window needs from the OS: the
// WebKitGTK settings that keep the webview lean (webview.go) and handing
// the executable's startup-only pages back to the kernel (pageout*.go).
// main.go calls it while wiring; nothing headless imports it, so the CLI
// stays free of GTK and cgo.
package desktop
