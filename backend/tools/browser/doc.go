// Package browser implements the browser.action and browser.batch tools: a
// real Chromium driven through playwright-go, one browser context per
// session.
//
// Nothing is downloaded at run time. The Node side of playwright-go is the
// npm package playwright-core at exactly DriverVersion, installed by the
// setup with `npm ci --prefix backend/tools/browser/driver`; the browser is
// the system's chromium. The Manager lays out a driver directory (node plus
// a patched copy of playwright-core) in the user cache and starts the driver
// from there, so playwright-go's download path is never reached. When a
// piece is missing, the tool result says which one (ErrUnavailable).
//
// Effects: navigate carries Browser{navigate, origin} with the target's
// origin; every other action carries Browser{verb, origin of the current
// page}. A batch carries one effect per distinct (verb, origin), origins
// followed through its navigates; when a step finds the tab on another
// origin than the one it was approved for, the batch stops there.
//
// The policy decides on those effects; this package enforces the network
// half of the decision itself: every request a session's pages make passes a
// filter that lets only loopback hosts through unless the session's sandbox
// grants network access; when it does, every non-loopback request goes
// through the session's proxy and each host is decided for the call in
// flight (egress.go). Downloads and service workers are off, and there is
// no evaluate action: arbitrary JavaScript would be code execution the gate
// never saw. Only http and https URLs can be opened.
//
// Failures a model can act on (bad selector, timeout, blocked host, crashed
// or closed page) are error results naming the page's URL and title, not Go
// errors; a crashed or closed page is replaced by a blank one.
package browser
