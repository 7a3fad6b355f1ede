/*
Package shell classifies a bash script before it runs: read-only, write,
network, unknown or destructive, with the paths, hosts and reasons behind the
verdict and the signature an "always" answer remembers.

It works on a real parse (mvdan.cc/sh/v3/syntax) and is pure: no I/O, no
clock, no globals that change. Per-program knowledge is data: option tables
(which options exist, which take a value, which are known harmless) resolved
the way getopt_long does, unambiguous prefixes included. A read-only verdict
comes only from an allowlist; an option a table does not know makes the
command not read-only.

Mechanisms, one per class of false allow the red team found (issue 14):

  - Code in data: every word bash reads as a variable name (test -v, [[ -v ]],
    printf -v, read, unset, wait -p, mapfile, getopts, exec {fd}>, the
    declaration builtins) goes through one check, nameRef: only NAME and
    NAME[digits] are data; a subscript, or a name computed at run time, is
    arithmetic that can run $(...). Variables declared -i are tracked, and
    any assignment to them of something other than a number is Unknown.
  - Options: options.txt holds per-program option tables; parse resolves
    long options like getopt_long (exact name, else a unique prefix;
    ambiguous or unknown is not harmless) and short clusters with attached
    values. Tags say what an option does (exec, write, destroy, net...).
  - Programs that run programs: their command-line options are tagged exec;
    awk programs are tokenised (print/printf redirections and pipes,
    | getline, system(), |&, @load); find's primaries are a table.
  - Work-destroying spellings: git's checkout/restore/switch/read-tree/
    checkout-index/branch/gc/reflog/stash by option tag; an empty command
    (`> f`, `: > f`, `cat` with no input, `exec > f`) redirected over a file,
    copies and links from /dev/null, sort -o from nothing, mv to /dev/*,
    and schedulers (crontab, at, batch, systemd-run, git maintenance start).
  - Hidden network: getent's network databases, DNS tools, curl
    --connect-to/--resolve/--unix-socket/--proxy, ssh -J/ProxyJump, tar -f
    host:path, docker -H/--context, pip list -o; ssh's remote command is
    classified and what it destroys is destructive here.

Mechanisms of issue 31 (a claim is what the cage enforces, so the claim
must be the command's real effect):

  - Paths resolve as the kernel resolves them (paths.go): component by
    component, following links, ".." applied to what is resolved so far.
    /dev/fd is /proc/self/fd and /dev/std* are its 0..2; /proc/self/cwd is
    the working directory and /proc/self/root is /. Only the exact
    /dev/null, /dev/std*, /dev/fd/N are sinks, and /dev/fd/N is the file
    when the script opened N from one (exec 3< f; echo > /dev/fd/3 reopens
    f for writing). Links on disk are input (ClassifyWith): the caller finds
    them with ResolveLinks, which runs the classifier to learn the paths it
    resolves and reads the links on them; links the script makes (ln -s)
    are followed too. cd is logical as in bash (cd -P and set -P physical),
    and later paths are resolved from it by the kernel's rules.
  - Shell state is kept as bash keeps it (state.go): history expansion,
    functions run in the caller's shell and shadow programs, set -k,
    lastpipe, aliases once expanded (expand_aliases, POSIX mode, sh -c).
  - Wrappers are option tables (wrap.go, options.txt): getopt_long prefixes
    find where the command starts. Programs that run a command they name
    (find -exec, xargs, parallel, git bisect run, rebase -x, strace -o '!cmd')
    are judged by that command on their inputs; for a program the classifier
    cannot follow, a word naming a known program, or holding a command line,
    is probed and what it destroys counts.
  - Copies into a folder write the entries they create (copy.go); links
    record their targets (Links), which the engine checks like writes.
  - Options that select or set configuration make a read-only program
    Unknown; programs that read project files that configure them (go.mod's
    toolchain, rust-toolchain.toml, .mvn/) are not read-only.
  - Programs' own output: awk's print > "file" and sed's w are writes of
    those files; an output option whose value starts with | or ! runs it.
  - Env names the environment that keeps reading programs from updating
    caches (GIT_OPTIONAL_LOCKS=0, MANWIDTH=81, LESSHISTFILE=-).
  - Signatures cover exactly what was shown: a head only when every further
    word is known harmless from the program's table; the exact command for
    programs without a table, words after --, git's -C/--git-dir/--work-tree,
    push --no-verify, pull -s/-X, ssh -A/-X/-Y/-o; a leading + on a fetch
    or pull refspec is +force.

Choices this package makes where permission-model.md is silent.

  - A link to a target outside is recorded in Links, not as Unknown: the
    engine asks for it under full access (a later unconfined write through
    it lands outside) and lets the cage confine it otherwise.
  - gzip, bzip2 and xz on files replace them (destructive, asked like rm);
    as a filter (no file operand) or with -c, -l, -t they only read.
  - Shell options are sticky: once set anywhere, they stay set (a branch not
    taken may have set them); turning one off is not followed.
  - A function named like a known program is classified both ways; where
    they leave the working directory differently it becomes unknown.
  - `python3 --version` and the like (one version flag, nothing else) are
    read-only: no project code runs. Any other argument keeps the program's rule.
  - A word computed at run time can be any option, so a program whose
    read-only proof rests on its options refuses it (tables flagged dynops
    take it as an operand: cp, mv, install, ln, file).
  - Running project code is not a network purpose: npx, npm exec, pnpm/yarn
    dlx, uv run and go test are Unknown (they run in the cage), not Network;
    installs, fetches and remote queries are Network.
  - git subcommands whose every option only reads are listed with the "any"
    flag in options.txt; the write subcommands among them are never read-only
    and are checked for exec options by getopt prefix.
*/
package shell
