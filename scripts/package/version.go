package main

import (
	"fmt"
	"regexp"
	"strings"
)

// describeAfterTag is `git describe` past a tag: v1.2.3-4-gabc1234.
var describeAfterTag = regexp.MustCompile(`^v?(\d+(?:\.\d+)*)-(\d+)-g([0-9a-f]+)(-dirty)?$`)

// semverish is the Makefile's version: 1.2.3, optionally a -prerelease and a
// build metadata after "+" (0.1.0-dev+044cf63-dirty).
var semverish = regexp.MustCompile(`^v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+?))?(?:\+([0-9A-Za-z.-]+))?$`)

// debianVersion turns the build's version into a Debian upstream version
// that sorts the way releases do: a prerelease sorts before its release
// (1.2.3~rc1 < 1.2.3), commits after a tag sort after it (1.2.3+4.gabc >
// 1.2.3). Debian forbids "-" in a version without a revision and "_" in a
// file name; both are rewritten, anything else unusual is refused.
func debianVersion(v string) (string, error) {
	v = strings.TrimSpace(v)
	if m := describeAfterTag.FindStringSubmatch(v); m != nil {
		out := m[1] + "+" + m[2] + ".g" + m[3]
		if m[4] != "" {
			out += ".dirty"
		}
		return out, nil
	}
	m := semverish.FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("version %q: want N.N.N[-prerelease][+build] or git describe output (vN.N.N-K-gHASH)", v)
	}
	out := m[1]
	if m[2] != "" {
		out += "~" + strings.ReplaceAll(m[2], "-", ".")
	}
	if m[3] != "" {
		out += "+" + strings.ReplaceAll(m[3], "-", ".")
	}
	return out, nil
}

// validDebianVersion is Debian policy 5.6.12 for a version with no epoch
// and no revision: starts with a digit; digits, letters, . + ~ only.
var validDebianVersion = regexp.MustCompile(`^[0-9][0-9A-Za-z.+~]*$`)
