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

Choices this package makes where permission-model.md is silent.

  - The classifier joins relative targets with cwd lexically and tracks cd
    inside the script; it cannot see symlinks. Without the cage a write through
    a workspace symlink would leave the workspace, so `ln -s` to an absolute or
    upward target is Unknown (asks when uncaged).
  - `python3 --version` and the like (one version flag, nothing else) are
    read-only: no project code runs. Any other argument keeps the program's rule.
*/
package shell
