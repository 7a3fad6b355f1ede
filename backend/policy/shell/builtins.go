package shell

import "strings"

// The name-taking builtins: each word bash reads as a variable name goes
// through nameRef, since a subscript in it is arithmetic that runs code.

func hPrintf(w *walker, inv *invocation) {
	for i := 0; i < len(inv.args); i++ {
		v := inv.args[i].val
		if !inv.args[i].static {
			if i == 0 {
				w.unknown("printf: the first argument is computed at run time and may be -v NAME")
			}
			return
		}
		switch {
		case v == "-v" && i+1 < len(inv.args):
			w.nameRef(inv.args[i+1], "printf -v", true)
			i++
		case strings.HasPrefix(v, "-v") && len(v) > 2:
			w.nameRef(arg{val: v[2:], static: true}, "printf -v", true)
		case v == "--":
			return
		default:
			return // the format
		}
	}
}

// builtinNames parses a builtin's options with the letters that take a value
// and the one whose value is a variable name, and checks every name.
func (w *walker) builtinNames(inv *invocation, valued string, nameOpt byte, operandsAreNames bool, skip int) {
	i := 0
	for ; i < len(inv.args); i++ {
		a := inv.args[i]
		if !a.static {
			w.unknown(inv.name + ": an argument computed at run time may be a variable name with a subscript")
			return
		}
		v := a.val
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(valued, c) < 0 && c != nameOpt {
				continue
			}
			val := arg{val: v[j+1:], static: true}
			if j+1 == len(v) {
				if i+1 >= len(inv.args) {
					break
				}
				i++
				val = inv.args[i]
			}
			if c == nameOpt {
				w.nameRef(val, inv.name+" -"+string(c), true)
			}
			break
		}
	}
	if !operandsAreNames {
		return
	}
	for k, a := range inv.args[i:] {
		if k < skip {
			continue
		}
		w.nameRef(a, inv.name, true)
	}
}

func hRead(w *walker, inv *invocation) { w.builtinNames(inv, "dinNptu", 'a', true, 0) }

func hMapfile(w *walker, inv *invocation) {
	for _, a := range inv.args {
		if a.static && strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "C") {
			w.unknown(inv.name + " -C runs a callback")
		}
	}
	w.builtinNames(inv, "dnOsuCc", 0, true, 0)
}

func hGetopts(w *walker, inv *invocation) {
	if len(inv.args) >= 2 {
		w.nameRef(inv.args[1], "getopts", true)
	}
}

func hUnset(w *walker, inv *invocation) {
	for _, a := range inv.args {
		if a.static && strings.HasPrefix(a.val, "-") {
			continue
		}
		w.nameRef(a, "unset", false)
	}
}

func hWait(w *walker, inv *invocation) { w.builtinNames(inv, "", 'p', false, 0) }

// hTest is test and [: -v NAME and -R NAME read a variable name.
func hTest(w *walker, inv *invocation) {
	for i, a := range inv.args {
		if a.static && (a.val == "-v" || a.val == "-R") && i+1 < len(inv.args) {
			w.nameRef(inv.args[i+1], inv.name+" "+a.val, false)
		}
	}
}
