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

Choices this package makes where permission-model.md is silent.

  - The classifier joins relative targets with cwd lexically and tracks cd
    inside the script; it cannot see symlinks. Without the cage a write through
    a workspace symlink would leave the workspace, so `ln -s` to an absolute or
    upward target is Unknown (asks when uncaged).
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
