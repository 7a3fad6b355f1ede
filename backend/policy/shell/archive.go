package shell

import "strings"

// Archivers: listing is a read, creating writes the archive, extracting
// writes files named inside it; options that run programs are tagged in
// options.txt.

func hArchive(w *walker, inv *invocation) {
	if inv.name == "tar" {
		hTar(w, inv)
		return
	}
	if inv.name == "zip" {
		hZip(w, inv)
		return
	}
	if w.refuseDynamic(inv) {
		return
	}
	extract := inv.name == "unzip" || inv.name == "7z" && hasAnyArg(inv.args, "x", "e")
	switch inv.name {
	case "unzip":
		for _, a := range inv.args {
			if a.val == "-l" || a.val == "-v" || a.val == "-t" || a.val == "-Z" || a.val == "-p" {
				return
			}
		}
	}
	// Extracting writes files whose names come from the archive, protected
	// ones included; only the cage bounds it. unzip -d names the folder.
	dir := arg{val: ".", static: true}
	for i, a := range inv.args {
		if inv.name == "unzip" && a.val == "-d" && i+1 < len(inv.args) {
			dir = inv.args[i+1]
		} else if inv.name == "unzip" && strings.HasPrefix(a.val, "-d") && len(a.val) > 2 {
			dir = arg{val: a.val[2:], static: a.static}
		}
	}
	w.writeTo(inv.sc, dir, inv.name)
	if extract {
		w.unknown(inv.name + " writes files named inside the archive")
	}
}

// tarArgs turns tar's old-style first word (`tar xzf a.tgz`) into options:
// each letter is an option and those that take a value take the next words.
func tarArgs(args []arg) []arg {
	if len(args) == 0 || !args[0].static || strings.HasPrefix(args[0].val, "-") {
		return args
	}
	t := tableFor("tar")
	out := []arg{}
	rest := args[1:]
	for _, c := range []byte(args[0].val) {
		out = append(out, arg{val: "-" + string(c), static: true})
		if c < 128 && t.short[c] != nil && t.short[c].val == valRequired && len(rest) > 0 {
			out = append(out, rest[0])
			rest = rest[1:]
		}
	}
	return append(out, rest...)
}

func hTar(w *walker, inv *invocation) {
	args := tarArgs(inv.args)
	opts, _, _ := w.tableOpts(inv, "tar", args)
	mode := ""
	for _, o := range opts {
		if m, ok := strings.CutPrefix(o.def.tag, "mode-"); ok {
			mode = m
		}
	}
	for _, f := range tagged(opts, "archive") {
		// tar reads host:path as a remote archive over rsh/ssh.
		if h := remoteHost(f.val); h != "" && !hasTag(opts, "local") {
			w.network(h)
		}
	}
	sc := inv.sc
	if d := tagged(opts, "chdir"); len(d) > 0 {
		sc = sc.copy()
		w.chdirArg(sc, arg{val: d[len(d)-1].val, static: !d[len(d)-1].dynamic})
	}
	switch mode {
	case "list", "":
		if mode == "" {
			w.unknown("tar without a mode option")
		}
	case "create", "write":
		archives := tagged(opts, "archive")
		if len(archives) == 0 {
			w.writeTo(sc, arg{val: ".", static: true}, "tar")
		}
		for _, f := range archives {
			if f.val != "-" && remoteHost(f.val) == "" {
				w.writeTo(inv.sc, arg{val: f.val, static: !f.dynamic}, "tar archive")
			}
		}
	case "extract":
		if hasTag(opts, "stdout") {
			return
		}
		if hasTag(opts, "overwrite") {
			w.destroy("tar --overwrite/--unlink-first: replaces existing files with the archive's")
		}
		w.writeTo(sc, arg{val: ".", static: true}, "tar")
		w.unknown("tar writes files named inside the archive")
	}
}

func hZip(w *walker, inv *invocation) {
	opts, ops, _ := w.tableOpts(inv, "zip", inv.args)
	if hasTag(opts, "zipdelete") || len(ops) > 0 {
		if len(ops) > 0 {
			w.writeTo(inv.sc, ops[0], "zip archive")
		} else {
			w.writeTo(inv.sc, arg{val: ".", static: true}, "zip")
		}
	}
}

// compressors replace a file by its compressed (or decompressed) form next
// to it. gzip, bzip2 and xz remove the input unless kept; zstd and lz4 keep
// it unless told to remove it. Reading stdin (no file operand) or writing
// stdout leaves every file as it was.
var compressors = map[string]struct {
	table, suffix    string
	keeps, decompess bool
}{
	"gzip": {"gzip", ".gz", false, false}, "gunzip": {"gzip", ".gz", false, true},
	"pigz": {"gzip", ".gz", false, false}, "unpigz": {"gzip", ".gz", false, true},
	"bzip2": {"bzip2", ".bz2", false, false}, "bunzip2": {"bzip2", ".bz2", false, true},
	"xz": {"xz", ".xz", false, false}, "unxz": {"xz", ".xz", false, true},
	"lzma": {"xz", ".lzma", false, false}, "unlzma": {"xz", ".lzma", false, true},
	"zstd": {"zstd", ".zst", true, false}, "unzstd": {"zstd", ".zst", true, true},
	"lz4": {"lz4", ".lz4", true, false}, "unlz4": {"lz4", ".lz4", true, true},
}

func hCompress(w *walker, inv *invocation) {
	c := compressors[inv.name]
	opts, ops, _ := w.tableOpts(inv, c.table, inv.args)
	if hasTag(opts, "list") || hasTag(opts, "stdout") {
		return
	}
	files := hasTag(opts, "filesfrom") || hasTag(opts, "multiple") || inv.tail
	if len(ops) == 0 && !files {
		return // a filter: stdin to stdout
	}
	decompress := c.decompess && !hasTag(opts, "compress") || hasTag(opts, "decompress")
	keep := c.keeps && !hasTag(opts, "remove") || hasTag(opts, "keep")
	suffix := c.suffix
	if s := tagged(opts, "suffix"); len(s) > 0 && s[len(s)-1].val != "" {
		suffix = s[len(s)-1].val
	}
	if (inv.name == "lz4" || inv.name == "unlz4") && !hasTag(opts, "multiple") && len(ops) == 2 {
		// lz4 IN OUT: the second operand is the output.
		w.writeTo(inv.sc, ops[1], inv.name)
		return
	}
	if !keep {
		what := "compressed"
		if decompress {
			what = "decompressed"
		}
		why := inv.name + ": replaces each file with its " + what + " form, removing the original"
		if hasTag(opts, "recursive") {
			why = inv.name + " -r: replaces every file of a tree with its " + what + " form"
		}
		w.destroy(why)
		w.removeOps(inv, ops, inv.name)
	}
	if out := tagged(opts, "outdir"); len(out) > 0 {
		w.writeTo(inv.sc, arg{val: out[0].val, static: !out[0].dynamic}, inv.name)
		return
	}
	if len(tagged(opts, "write")) > 0 {
		return // -o FILE: recorded with the tag
	}
	for _, a := range ops {
		if !a.static || a.glob {
			w.writeTo(inv.sc, a, inv.name)
			continue
		}
		name := a.val + suffix
		if decompress {
			name = strings.TrimSuffix(a.val, suffix)
			if name == a.val {
				name = a.val + ".out"
			}
		}
		w.writeTo(inv.sc, arg{val: name, static: true}, inv.name)
	}
	if files {
		w.write = true
		w.res.Unresolved = true
	}
}
