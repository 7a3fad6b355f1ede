package policy

import (
	"errors"
	"path"
	"strings"
)

// Path globs of rules: "secrets/**", "*.pem", "docs/", "/etc/**",
// "~/.ssh/**". One syntax, gitignore's in spirit:
//
//   - "*", "?" and "[...]" match within one path segment (path.Match);
//     "**" as a whole segment matches any number of segments, none too.
//   - A pattern without a slash matches a name at any depth ("*.pem" is
//     "**/*.pem"); a trailing slash is the folder and everything in it.
//   - A relative pattern is anchored at the workspace; an absolute one (or
//     "~/...") at the root (or the home folder, as the classifier writes it).
//   - A pattern that matches a folder matches everything below it.

// glob is a compiled path pattern.
type glob struct {
	raw      string
	segs     []string
	absolute bool // "/..." or "~..."
	home     bool // "~..."
}

func compileGlob(raw string) (glob, error) {
	g := glob{raw: raw}
	p := strings.TrimSpace(raw)
	if p == "" {
		return g, errors.New("empty path pattern")
	}
	if strings.Contains(p, "\x00") {
		return g, errors.New("path pattern holds a NUL byte")
	}
	switch {
	case strings.HasPrefix(p, "/"):
		g.absolute = true
		p = strings.TrimLeft(p, "/")
	case p == "~" || strings.HasPrefix(p, "~/"):
		g.absolute, g.home = true, true
	case strings.HasPrefix(p, "./"):
		p = strings.TrimPrefix(p, "./")
	}
	dir := strings.HasSuffix(p, "/")
	p = strings.TrimRight(p, "/")
	if p == "" {
		if g.absolute {
			g.segs = []string{"**"}
			return g, nil
		}
		return g, errors.New("path pattern names no file")
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		switch s {
		case "":
			return g, errors.New("path pattern " + raw + " has an empty segment")
		case "..":
			return g, errors.New("path pattern " + raw + " leaves its anchor with ..")
		case ".":
			return g, errors.New("path pattern " + raw + " has a . segment")
		}
		if s != "**" {
			if _, err := path.Match(s, ""); err != nil {
				return g, errors.New("path pattern " + raw + ": bad segment " + s)
			}
		}
	}
	if !g.absolute && len(segs) == 1 && !dir && segs[0] != "**" {
		segs = append([]string{"**"}, segs...)
	}
	if dir {
		segs = append(segs, "**")
	}
	g.segs = segs
	return g, nil
}

// match reports whether the pattern covers p: a path relative to the
// workspace (for a relative pattern) or absolute (for an absolute one),
// cleaned, with no leading slash. A pattern matching a folder covers
// what is below it.
func (g glob) match(p string) bool {
	if p == "" {
		return false
	}
	parts := strings.Split(p, "/")
	// A match of any leading run of segments covers the rest (a folder
	// covers its contents).
	return matchSegs(g.segs, parts, true)
}

// matchSegs matches pattern segments against path segments; prefix lets a
// complete pattern match a leading part of the path.
func matchSegs(pat, parts []string, prefix bool) bool {
	// Iterative with one backtrack point per "**" (the classic wildcard
	// algorithm over segments): linear in practice, no exponential blowup.
	pi, si := 0, 0
	star, starSi := -1, 0
	for {
		if pi == len(pat) {
			if si == len(parts) || prefix {
				return true
			}
		} else if pat[pi] == "**" {
			star, starSi = pi, si
			pi++
			continue
		} else if si < len(parts) {
			if ok, _ := path.Match(pat[pi], parts[si]); ok {
				pi++
				si++
				continue
			}
		}
		if star < 0 || starSi >= len(parts) {
			return false
		}
		starSi++
		pi, si = star+1, starSi
	}
}

// pathMatch matches an absolute (or "~") path against g for a session in
// workspace ws.
func (g glob) pathMatch(p, ws string) bool {
	if p == "" {
		return false
	}
	if g.absolute {
		if g.home {
			return strings.HasPrefix(p, "~") && g.match(path.Clean(p))
		}
		if !strings.HasPrefix(p, "/") {
			return false
		}
		return g.match(strings.TrimLeft(path.Clean(p), "/"))
	}
	if ws == "" || !strings.HasPrefix(p, "/") {
		return false
	}
	rel, ok := relUnder(path.Clean(p), path.Clean(ws))
	return ok && g.match(rel)
}

// relUnder is p relative to dir when p lies strictly under it.
func relUnder(p, dir string) (string, bool) {
	if dir == "/" {
		return strings.TrimPrefix(p, "/"), p != "/"
	}
	if !strings.HasPrefix(p, dir+"/") {
		return "", false
	}
	return p[len(dir)+1:], true
}
