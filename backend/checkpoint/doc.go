// Package checkpoint lets every change a tool call makes to a workspace be
// seen and undone — shell commands included, not only file-tool edits.
//
// # Mechanism (measured, then chosen)
//
// Each workspace gets a shadow Git repository under Warden's data folder
// (<data>/checkpoints/<sha256(workspace)[:16]>/git): GIT_DIR there,
// GIT_WORK_TREE the workspace, its own index. Before and after every
// state-changing call the hook runs `git add -A && git write-tree` against
// that index; the two tree ids are the call's checkpoints and `git
// diff-tree` between them is its change set. Git was chosen over a Go walk
// plus a content-addressed store because its index already caches stat data
// (a clean tree costs one lstat per file, done by preload threads), the
// untracked cache skips unchanged directories, identical subtrees are shared
// between snapshots, and .gitignore semantics come for free and exactly. The
// figures are in bench_test.go (`make bench`), beside a plain `git add -A &&
// git write-tree` in a copy of the same tree.
//
// # What is never touched
//
// The user's own .git is never read or written: GIT_DIR points elsewhere, so
// there is no discovery, and git skips every path component named .git. No
// hook can run (core.hooksPath=/dev/null, and the shadow repository is
// created without templates); no user or system configuration is read
// (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null, HOME and
// XDG_CONFIG_HOME pointed at the shadow folder); the environment is built
// from scratch so a GIT_* variable of the caller cannot redirect it. The
// shadow repository's info/attributes unsets text, eol, filter, ident and
// working-tree-encoding for every path, so what is restored is byte for byte
// what was there (a workspace .gitattributes cannot make git convert line
// endings or run a filter). Nothing is written into the workspace except by
// an undo or restore.
//
// # What is tracked
//
// Everything git would add: the workspace's .gitignore files are honoured
// (the user's .git/info/exclude is not, because it is never read), plus
// Warden's own excludes, which by default leave out heavy, regenerable
// folders even in a workspace that has no .gitignore (DefaultExcludes:
// node_modules/, .venv/, __pycache__/, target/, dist/, build/, ...). A change
// set names the excluded folders present at the workspace root (Skipped),
// so the UI and `warden changes` can say that they are not covered. Git
// records a file's content, whether it is executable, and symlinks; it does
// not record other permission bits, owners, timestamps or empty folders, so
// neither does an undo. A nested repository (a folder with its own .git) is
// recorded as a gitlink only, not its files.
//
// # Faults
//
// A checkpoint never blocks a call: a missing, damaged or full snapshot store
// makes that call's WorkspaceChanged carry an Error in words, and the call
// runs anyway. A shadow repository git cannot open is moved aside
// (<dir>.damaged-<time>) and a fresh one started, so later calls are covered
// again; undo of a call whose checkpoint is gone says so.
package checkpoint
