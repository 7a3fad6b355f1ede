package browser

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// TargetOrigin checks a navigation target and returns the URL to open and its
// origin ("scheme://host:port", default port filled in, host lower-cased).
//
// Only http and https are accepted: file:// would read the host's disk,
// chrome:// and about: reach browser internals, javascript: and data: run
// code the gate never saw. The check is strict on purpose, because the policy
// reads the origin to tell loopback from network: anything Chromium's URL
// parser could read differently from Go's (backslashes, whitespace, control
// characters, empty hosts) is refused rather than guessed at.
func TargetOrigin(raw string) (*url.URL, string, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, "", fmt.Errorf("url is empty")
	}
	for _, r := range raw {
		if r <= 0x20 || r == 0x7f || r == '\\' {
			return nil, "", fmt.Errorf("url %q contains whitespace, a control character or a backslash", raw)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("url %q does not parse: %w", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https":
	case "":
		return nil, "", fmt.Errorf("url %q has no scheme; write it as http://… or https://…", raw)
	case "file", "chrome", "chrome-extension", "devtools", "view-source", "about", "javascript", "data", "blob", "filesystem":
		return nil, "", fmt.Errorf("url scheme %q is refused: only http and https pages can be opened", scheme)
	default:
		return nil, "", fmt.Errorf("url scheme %q is not supported: only http and https pages can be opened", scheme)
	}
	if u.Opaque != "" {
		return nil, "", fmt.Errorf("url %q has no host (write %s://host/…)", raw, scheme)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return nil, "", fmt.Errorf("url %q has no host", raw)
	}
	if !isASCII(host) {
		// Chromium opens the punycode form; the origin must be the one
		// the page will report, or a batch would see it "move".
		ascii, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return nil, "", fmt.Errorf("url %q has an invalid international host name: %w", raw, err)
		}
		host = ascii
	}
	port := u.Port()
	if port == "" && strings.HasSuffix(u.Host, ":") {
		return nil, "", fmt.Errorf("url %q has an empty port", raw)
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	u.Scheme = scheme
	return u, originString(scheme, host, port), nil
}

// OriginOf returns the origin of a page URL the browser reports, or "" when
// the page has none worth naming (about:blank, a crashed page, data:).
func OriginOf(pageURL string) string {
	u, origin, err := TargetOrigin(pageURL)
	if err != nil || u == nil {
		return ""
	}
	return origin
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func originString(scheme, host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

// IsLoopbackOrigin says whether an origin names this machine: localhost and
// *.localhost (Chromium answers those itself, never asking DNS), 127.0.0.0/8
// or ::1 — the same set the policy engine treats as not-network. Anything
// else, including names that merely resolve to loopback, counts as network:
// the safe direction to be wrong in.
func IsLoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
