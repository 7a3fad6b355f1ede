package shell

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Per-program option tables are data (options.txt): every option a program
// is known to accept, whether it takes a value, and a tag saying what it does
// (no tag: harmless). Long options resolve the way getopt_long and git's
// parse-options do: an exact name, or any prefix that names one option only.
// A word that names no option, or more than one, is not provably harmless:
// the program may refuse it, or it may be an option the table does not know.

//go:embed options.txt
var optionsData string

// valKind says whether an option takes a value.
type valKind uint8

const (
	valNone     valKind = iota
	valRequired         // -o FILE, -oFILE, --output FILE, --output=FILE
	valOptional         // -iSUFFIX, --in-place=SUFFIX (attached only)
)

// optDef is one option, under all its spellings.
type optDef struct {
	names []string // "-o", "--output"
	val   valKind
	tag   string // "" harmless; exec, write, destroy, net, unknown, or a handler's own
}

// canonical is the option's long name when it has one.
func (d *optDef) canonical() string {
	for _, n := range d.names {
		if strings.HasPrefix(n, "--") {
			return n
		}
	}
	return d.names[0]
}

// optTable is one program's (or one subcommand's) options.
type optTable struct {
	name  string
	short [128]*optDef
	long  map[string]*optDef
	longs []string // sorted keys of long, for prefix lookups
	// digits: -NUM is accepted (head -20, git log -3).
	digits bool
	// stop: options end at the first operand (ssh, env, git's globals).
	stop bool
	// any: every option of the program is harmless (cat, ls, grep).
	any bool
	// exact: long options must be spelled in full (the program has no
	// abbreviations: rg, find).
	exact bool
	// single: long options take one dash (find -name, go test -run).
	single bool
	// skip: operands before a wrapper's command (timeout's duration).
	skip int
	// dynops: a word computed at run time is taken as an operand: for
	// programs that are never read-only (cp, mv), whose worst computed word
	// is another option of the same write, and for file (see options.txt).
	dynops bool
}

// optTables is parsed on first use, not at package init: parsing takes
// milliseconds every process would pay at start, also those that never
// classify a command (`warden version`, the first frame of `warden tui`).
var optTables = sync.OnceValue(func() map[string]*optTable { return mustParseTables(optionsData) })

func tableFor(name string) *optTable { return optTables()[name] }

// mustParseTables reads options.txt. A malformed table is a programming
// error, caught by every test run.
func mustParseTables(src string) map[string]*optTable {
	tables, err := parseTables(src)
	if err != nil {
		panic(err)
	}
	return tables
}

func parseTables(src string) (map[string]*optTable, error) {
	tables := map[string]*optTable{}
	var cur []*optTable
	for n, line := range strings.Split(src, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			head, flags, _ := strings.Cut(line[1:], "]")
			cur = cur[:0:0]
			for _, name := range strings.Split(head, ",") {
				name = strings.TrimSpace(name)
				t := &optTable{name: name, long: map[string]*optDef{}}
				for _, f := range strings.Fields(flags) {
					switch f {
					case "digits":
						t.digits = true
					case "stop":
						t.stop = true
					case "any":
						t.any = true
					case "exact":
						t.exact = true
					case "single":
						t.single, t.exact = true, true
					case "dynops":
						t.dynops = true
					case "skip1":
						t.skip = 1
					default:
						return nil, fmt.Errorf("options.txt:%d: unknown table flag %q", n+1, f)
					}
				}
				if tables[name] != nil {
					return nil, fmt.Errorf("options.txt:%d: table %q defined twice", n+1, name)
				}
				tables[name] = t
				cur = append(cur, t)
			}
			continue
		}
		if len(cur) == 0 {
			return nil, fmt.Errorf("options.txt:%d: option outside a table", n+1)
		}
		if rest, ok := strings.CutPrefix(line, "include "); ok {
			for _, t := range cur {
				for _, from := range strings.Split(rest, ",") {
					src := tables[strings.TrimSpace(from)]
					if src == nil {
						return nil, fmt.Errorf("options.txt:%d: include of unknown table %q", n+1, from)
					}
					for c, d := range src.short {
						if d != nil && t.short[c] == nil {
							t.short[c] = d
						}
					}
					for k, d := range src.long {
						if t.long[k] == nil {
							t.long[k] = d
						}
					}
					t.digits = t.digits || src.digits
				}
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "each "); ok {
			for _, f := range strings.Fields(rest) {
				if err := addOpt(cur, f, n); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := addOpt(cur, line, n); err != nil {
			return nil, err
		}
	}
	for _, t := range tables {
		for k := range t.long {
			t.longs = append(t.longs, k)
		}
		sort.Strings(t.longs)
	}
	return tables, nil
}

// addOpt adds one option line (spellings and a tag) to the current tables.
func addOpt(cur []*optTable, line string, n int) error {
	{
		d := &optDef{}
		for _, f := range strings.Fields(line) {
			if !strings.HasPrefix(f, "-") {
				if d.tag != "" {
					return fmt.Errorf("options.txt:%d: two tags", n+1)
				}
				d.tag = f
				continue
			}
			switch {
			case strings.HasSuffix(f, "=?"):
				d.val, f = valOptional, strings.TrimSuffix(f, "=?")
			case strings.HasSuffix(f, "="):
				d.val, f = valRequired, strings.TrimSuffix(f, "=")
			}
			d.names = append(d.names, f)
		}
		if len(d.names) == 0 {
			return fmt.Errorf("options.txt:%d: no option names", n+1)
		}
		for _, t := range cur {
			for _, name := range d.names {
				switch {
				case strings.HasPrefix(name, "--") || t.single && len(name) > 2:
					t.long[strings.TrimLeft(name, "-")] = d
				case len(name) == 2 && name[1] < 128:
					t.short[name[1]] = d
				default:
					return fmt.Errorf("options.txt:%d: bad option name %q", n+1, name)
				}
			}
		}
	}
	return nil
}

// popt is one option as given on the command line, resolved.
type popt struct {
	def     *optDef
	as      string // as written, without the value
	val     string
	hasVal  bool
	dynamic bool // the value is computed at run time
}

// lookupLong resolves a long name (without dashes) the way getopt_long does.
// It returns the option, or why none: "unknown" or "ambiguous".
func (t *optTable) lookupLong(name string) (*optDef, string) {
	if d := t.long[name]; d != nil {
		return d, ""
	}
	if t.exact {
		return nil, "unknown"
	}
	i := sort.SearchStrings(t.longs, name)
	var found *optDef
	for ; i < len(t.longs) && strings.HasPrefix(t.longs[i], name); i++ {
		d := t.long[t.longs[i]]
		if found != nil && found != d {
			return t.ambiguous(name), "ambiguous"
		}
		found = d
	}
	if found == nil {
		// git's parse-options accepts --no-<option> for most options.
		if rest, ok := strings.CutPrefix(name, "no-"); ok && rest != "" {
			if d, _ := t.lookupLong(rest); d != nil {
				return &optDef{names: []string{"--no-" + strings.TrimLeft(d.canonical(), "-")}}, ""
			}
		}
		return nil, "unknown"
	}
	return found, ""
}

// ambiguous returns, for a prefix several options share, a stand-in that
// carries their tag when they all have the same one (rsync --dele is some
// --delete-*): the program may refuse the word, but if it reads it, it
// does what they all do. Otherwise nil.
func (t *optTable) ambiguous(name string) *optDef {
	i := sort.SearchStrings(t.longs, name)
	tag, val := "", valNone
	for j := i; j < len(t.longs) && strings.HasPrefix(t.longs[j], name); j++ {
		d := t.long[t.longs[j]]
		if j == i {
			tag, val = d.tag, d.val
		} else if d.tag != tag {
			return nil
		}
		if d.val != valNone {
			val = valOptional
		}
	}
	if tag == "" {
		return nil
	}
	return &optDef{names: []string{"--" + name}, val: val, tag: tag}
}

// parse splits args into resolved options and operands. bad names the first
// word that is not a known option (or is computed at run time and could
// become one); callers make the command Unknown on it.
func (t *optTable) parse(args []arg) (opts []popt, ops []arg, bad string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		switch {
		case !a.static || a.glob:
			if bad == "" && !t.any && !t.dynops {
				bad = "an argument computed at run time can be any option"
			}
			ops = append(ops, a)
			continue
		case v == "--":
			return opts, append(ops, args[i+1:]...), bad
		case v == "-" || len(v) < 2 || v[0] != '-':
			ops = append(ops, a)
			if t.stop {
				return opts, append(ops, args[i+1:]...), bad
			}
			continue
		}
		if t.any {
			opts = append(opts, popt{def: anyDef, as: v})
			continue
		}
		if strings.HasPrefix(v, "--") || t.single && len(v) > 2 && !(t.digits && isDigits(v[1:])) {
			name, val, hasVal := strings.Cut(strings.TrimLeft(v, "-"), "=")
			d, why := t.lookupLong(name)
			if why == "ambiguous" {
				if bad == "" {
					bad = "ambiguous option " + v
				}
				if d != nil {
					opts = append(opts, popt{def: d, as: "--" + name, val: val, hasVal: hasVal})
				}
				continue
			}
			if d == nil && t.single && len(name) == 1 && name[0] < 128 {
				d, why = t.short[name[0]], "unknown"
			}
			if d == nil && t.single && v[1] != '-' {
				// Not a single-dash long option: a cluster of short ones.
				goto cluster
			}
			if d == nil {
				if bad == "" {
					bad = why + " option " + v
				}
				continue
			}
			o := popt{def: d, as: "--" + name, val: val, hasVal: hasVal}
			if t.single {
				o.as = "-" + name
			}
			if !hasVal && d.val == valRequired && i+1 < len(args) {
				i++
				o.val, o.hasVal, o.dynamic = args[i].val, true, !args[i].static
			}
			opts = append(opts, o)
			continue
		}
		if t.digits && isDigits(v[1:]) {
			opts = append(opts, popt{def: digitsDef, as: v})
			continue
		}
	cluster:
		for j := 1; j < len(v); j++ {
			c := v[j]
			var d *optDef
			if c < 128 {
				d = t.short[c]
			}
			if d == nil {
				if bad == "" {
					bad = "unknown option -" + string(c) + " in " + v
				}
				break
			}
			o := popt{def: d, as: "-" + string(c)}
			if d.val == valNone {
				opts = append(opts, o)
				continue
			}
			if j+1 < len(v) {
				o.val, o.hasVal = v[j+1:], true
			} else if d.val == valRequired && i+1 < len(args) {
				i++
				o.val, o.hasVal, o.dynamic = args[i].val, true, !args[i].static
			}
			opts = append(opts, o)
			break
		}
	}
	return opts, ops, bad
}

var (
	anyDef    = &optDef{names: []string{"-*"}}
	digitsDef = &optDef{names: []string{"-NUM"}}
)

// tagged returns the options of a tag, in order.
func tagged(opts []popt, tag string) []popt {
	var out []popt
	for _, o := range opts {
		if o.def.tag == tag {
			out = append(out, o)
		}
	}
	return out
}

func hasTag(opts []popt, tag string) bool {
	for _, o := range opts {
		if o.def.tag == tag {
			return true
		}
	}
	return false
}

// isOpt reports whether any given option is name (a canonical spelling).
func isOpt(opts []popt, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			for _, dn := range o.def.names {
				if dn == n {
					return true
				}
			}
		}
	}
	return false
}

// optVals returns the values of the options spelled name.
func optVals(opts []popt, names ...string) []string {
	var out []string
	for _, o := range opts {
		for _, n := range names {
			if contains(o.def.names, n) {
				out = append(out, o.val)
				break
			}
		}
	}
	return out
}

// tableOpts parses inv's arguments with the named table and applies the
// generic tags; the handler reads the rest. ok is false when the command is
// already Unknown (an option the table does not know).
func (w *walker) tableOpts(inv *invocation, table string, args []arg) (opts []popt, ops []arg, ok bool) {
	t := tableFor(table)
	if t == nil {
		w.unknown(table + ": no option table")
		return nil, args, false
	}
	opts, ops, bad := t.parse(args)
	if bad == "" && inv.tail && !t.any && !t.dynops {
		bad = "more arguments arrive at run time and can be any option"
	}
	if bad != "" {
		w.unknown(table + ": " + bad + " (not a known harmless option)")
		ok = false
	} else {
		ok = true
	}
	w.applyTags(inv, table, opts)
	return opts, ops, ok
}
