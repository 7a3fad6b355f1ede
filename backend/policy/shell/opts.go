package shell

import "strings"

// opt is one parsed option: "-x" or "--name", with its value if it takes one.
type opt struct {
	name string
	val  string
}

// optSpec says which options take a value: short letters that need one,
// short letters whose value may only be attached (-i.bak), and long names
// (without "--") that take the next word when not written with '='.
type optSpec struct {
	short    string
	shortOpt string
	long     []string
}

// longTakes reports a long option that takes the next word, spelled in
// full or as a prefix getopt_long would accept for one value-taking option.
func (s optSpec) longTakes(name string) bool {
	if name == "" {
		return false
	}
	n := 0
	for _, l := range s.long {
		if l == name {
			return true
		}
		if strings.HasPrefix(l, name) {
			n++
		}
	}
	return n == 1
}

// parseOpts splits args the way getopt_long does: options anywhere, operands
// in between, everything after "--" an operand. Words computed at run time
// are operands; callers that care refuse them first.
func parseOpts(args []arg, spec optSpec) (opts []opt, ops []arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		switch {
		case !a.static || v == "-" || len(v) < 2 || v[0] != '-':
			ops = append(ops, a)
		case v == "--":
			ops = append(ops, args[i+1:]...)
			return opts, ops
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			o := opt{name: "--" + name, val: val}
			if !hasVal && spec.longTakes(name) && i+1 < len(args) {
				i++
				o.val = args[i].val
			}
			opts = append(opts, o)
		default:
			for j := 1; j < len(v); j++ {
				c := v[j]
				o := opt{name: "-" + string(c)}
				if strings.IndexByte(spec.short, c) >= 0 {
					if j+1 < len(v) {
						o.val = v[j+1:]
					} else if i+1 < len(args) {
						i++
						o.val = args[i].val
					}
					opts = append(opts, o)
					break
				}
				if strings.IndexByte(spec.shortOpt, c) >= 0 {
					o.val = v[j+1:]
					opts = append(opts, o)
					break
				}
				opts = append(opts, o)
			}
		}
	}
	return opts, ops
}

// has reports whether any of names was given. A long name also matches its
// unambiguous prefixes the way getopt_long does only when spelled in full, so
// callers list the abbreviations they care about.
func has(opts []opt, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func values(opts []opt, names ...string) []string {
	var out []string
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				out = append(out, o.val)
			}
		}
	}
	return out
}

// longPrefix reports a long option that getopt_long would accept as an
// abbreviation of full (at least min characters after "--").
func longPrefix(opts []opt, full string, min int) bool {
	for _, o := range opts {
		if strings.HasPrefix(o.name, "--") && len(o.name)-2 >= min && strings.HasPrefix(full, o.name) {
			return true
		}
	}
	return false
}
