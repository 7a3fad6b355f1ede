package policy

// The one list of protected paths. The engine's tiers (ProtectedTier: a
// visible write to an edit-protected path needs a human) and the OS cage's
// read-only set (CageHeld: what a caged call no human approved cannot
// change, whatever the workspace and writable roots are — the user's home
// included) are both read from protectedTable; nothing else names a
// protected path. TestProtectedTableBothSides (backend/cage/sandbox) walks
// it and checks the engine and a real cage agree on every entry.

// ProtectionTier is what a protected path needs (not policy.Tier, where a
// setting comes from).
type ProtectionTier int

const (
	// TierCage: a write would later run code outside the sandbox or
	// reconfigure the agent. No caged command changes it; a visible write
	// asks a human.
	TierCage ProtectionTier = iota + 1
	// TierEdit: supply-chain, secret and user-level files. A visible write
	// asks a human; the cage's treatment is the entry's InCage.
	TierEdit
)

// InCage is what the cage does with an entry for a call no human approved.
type InCage int

const (
	// HeldReadOnly: an existing one is bound read-only, a new one is
	// removed when it appears.
	HeldReadOnly InCage = iota + 1
	// HeldWritable: left writable inside the workspace and writable
	// roots, for the reason in Why.
	HeldWritable
)

// MatchKind is how an entry's Name is matched against a path.
type MatchKind int

const (
	// MatchName: any path component equal to Name.
	MatchName MatchKind = iota + 1
	// MatchPrefix: the last component starts with Name.
	MatchPrefix
	// MatchUnder: a component Name right under the component(s) Parent
	// ("bin" under ".local", "hgrc" under ".hg", "config.toml" under
	// ".jj/repo").
	MatchUnder
	// MatchGitdir: Name at the top level of a gitdir (the repository's
	// .git, a worktree's or submodule's gitdir, a nested repository, a bare
	// NAME.git), and not inside git's data areas.
	MatchGitdir
	// MatchGitFile: a .git that is a file ("gitdir: …" points git at
	// another repository's configuration and hooks).
	MatchGitFile
	// MatchWorktreeAdmin: inside a linked worktree's admin folder
	// (.git/worktrees/<name>/…).
	MatchWorktreeAdmin
	// MatchSystem: an absolute folder and everything below it.
	MatchSystem
)

// ProtectedEntry is one line of the one list.
type ProtectedEntry struct {
	Match  MatchKind
	Parent string // MatchUnder: one or two components ("a" or "a/b")
	Name   string
	Dir    bool // the entry is a folder (everything in it is protected too)
	Tier   ProtectionTier
	Cage   InCage
	// Reader is the program outside the cage that reads it as code or
	// configuration (backend/cage/readers' inventory names the same).
	Reader string
	Why    string
}

// Readers named by the table; backend/cage/readers lists each with its
// mechanism and test.
const (
	ReaderGit       = "git"
	ReaderWarden    = "Warden"
	ReaderShell     = "your shell and desktop session"
	ReaderEditor    = "your editor"
	ReaderVCS       = "other version control"
	ReaderPackages  = "package managers"
	ReaderUserTools = "programs reading your home's configuration"
	ReaderPrograms  = "the programs that load it"
)

const (
	whyGit      = "git reads it as configuration or runs it (hooks, fsmonitor, filters, aliases)"
	whyRC       = "a shell or session runs it when it starts"
	whyEditor   = "the editor runs it when it opens the folder"
	whyLockfile = "a package manager updates its lockfile inside the cage (permission-model.md: not blocked)"
	whyGitData  = "git add, commit and switch work inside the cage; what git runs is the gitdir entries"
)

// protectedTable is the one list. Order is documentation only.
var protectedTable = []ProtectedEntry{
	// What git reads as configuration or runs, in every gitdir at any depth.
	{Match: MatchGitdir, Name: "config", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderGit, Why: whyGit},
	{Match: MatchGitdir, Name: "config.worktree", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderGit, Why: whyGit},
	{Match: MatchGitdir, Name: "commondir", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderGit, Why: "points git at another repository's configuration and hooks"},
	{Match: MatchGitdir, Name: "gitdir", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderGit, Why: "points git at another repository's configuration and hooks"},
	{Match: MatchGitdir, Name: "hooks", Dir: true, Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderGit, Why: "git runs the hooks"},
	{Match: MatchGitdir, Name: "info", Dir: true, Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderGit, Why: "info/attributes names filter and diff drivers git runs"},
	{Match: MatchGitFile, Name: ".git", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderGit, Why: "a gitdir: file points git at another repository's configuration and hooks"},
	{Match: MatchName, Name: ".git", Dir: true, Tier: TierEdit, Cage: HeldWritable, Reader: ReaderGit, Why: whyGitData},
	{Match: MatchWorktreeAdmin, Name: ".git/worktrees/*", Dir: true, Tier: TierEdit, Cage: HeldWritable, Reader: ReaderGit, Why: whyGitData},

	// Warden's own configuration.
	{Match: MatchName, Name: ".mcp.json", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderWarden, Why: "names MCP servers Warden starts"},
	{Match: MatchName, Name: ".warden", Dir: true, Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderWarden, Why: "the workspace's Warden configuration"},

	// What an editor or an environment tool runs when the folder opens.
	{Match: MatchName, Name: ".vscode", Dir: true, Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderEditor, Why: "tasks run on folder open, settings name programs"},
	{Match: MatchName, Name: ".envrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: "direnv runs it on entering the folder"},
	{Match: MatchName, Name: ".exrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderEditor, Why: whyEditor + " (vim's exrc)"},
	{Match: MatchName, Name: ".nvimrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderEditor, Why: whyEditor + " (neovim's exrc)"},
	{Match: MatchName, Name: ".nvim.lua", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderEditor, Why: whyEditor + " (neovim's exrc)"},
	{Match: MatchName, Name: ".vimrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderEditor, Why: "vim runs it when it starts"},
	{Match: MatchName, Name: ".gvimrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderEditor, Why: "gvim runs it when it starts"},
	{Match: MatchName, Name: ".emacs", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderEditor, Why: "Emacs runs it when it starts"},

	// Shell and session start-up files.
	{Match: MatchName, Name: ".bashrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".bash_profile", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".bash_login", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".bash_logout", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".profile", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".zshrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".zshenv", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".zprofile", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".zlogin", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".zlogout", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".kshrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".cshrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".tcshrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchName, Name: ".inputrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: "readline binds keys to commands from it"},
	{Match: MatchName, Name: ".xprofile", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: "the desktop session runs it at login"},
	{Match: MatchName, Name: ".xsessionrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: "the desktop session runs it at login"},
	{Match: MatchName, Name: ".xinitrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderShell, Why: "startx runs it"},

	// Other version control: repository configuration that names programs.
	{Match: MatchUnder, Parent: ".hg", Name: "hgrc", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderVCS, Why: "Mercurial runs the [hooks] and extensions it names"},
	{Match: MatchUnder, Parent: ".jj/repo", Name: "config.toml", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderVCS, Why: "Jujutsu's repository config names programs (fix tools, diff editors, signing)"},
	{Match: MatchUnder, Parent: "_darcs/prefs", Name: "defaults", Tier: TierCage, Cage: HeldReadOnly, Reader: ReaderVCS, Why: "Darcs runs the posthooks it names"},

	// The user's home: credentials and configuration that names programs.
	{Match: MatchName, Name: ".ssh", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderUserTools, Why: "ssh config names programs (ProxyCommand); keys"},
	{Match: MatchName, Name: ".gnupg", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderUserTools, Why: "gpg's keys and agent configuration"},
	{Match: MatchName, Name: ".gitconfig", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderGit, Why: "git's user configuration: every repository's hooks path, aliases, fsmonitor"},
	{Match: MatchName, Name: ".git-credentials", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderGit, Why: "git's stored credentials"},
	{Match: MatchName, Name: ".netrc", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderUserTools, Why: "credentials and macros for curl, ftp, git"},
	{Match: MatchName, Name: ".pypirc", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPackages, Why: "package index credentials"},
	{Match: MatchName, Name: ".pam_environment", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "the login sets the environment from it (LD_PRELOAD, PATH)"},
	{Match: MatchName, Name: "authorized_keys", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderUserTools, Why: "sshd lets the keys it lists in, and runs their command= options"},
	{Match: MatchName, Name: ".docker", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderUserTools, Why: "docker's config names credential helper programs"},
	{Match: MatchName, Name: ".kube", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderUserTools, Why: "kubeconfig names exec credential programs"},
	{Match: MatchName, Name: ".aws", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderUserTools, Why: "the AWS config names credential_process programs"},
	{Match: MatchUnder, Parent: ".config", Name: "git", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderGit, Why: "git's user configuration and attributes"},
	{Match: MatchUnder, Parent: ".config", Name: "systemd", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "systemd user units run at login and on timers"},
	{Match: MatchUnder, Parent: ".config", Name: "autostart", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "the desktop session starts its entries at login"},
	{Match: MatchUnder, Parent: ".config", Name: "environment.d", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "the user's services get their environment from it"},
	{Match: MatchUnder, Parent: ".config", Name: "fish", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: whyRC},
	{Match: MatchUnder, Parent: ".config", Name: "pip", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPackages, Why: "pip's configuration names indexes"},
	{Match: MatchUnder, Parent: ".config", Name: "nvim", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderEditor, Why: "neovim runs its init when it starts"},
	{Match: MatchUnder, Parent: ".local", Name: "bin", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "it is on PATH: a program put there runs later in place of another"},
	{Match: MatchUnder, Parent: ".local/share", Name: "applications", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "desktop entries name the programs the menu and file associations start"},

	// Package managers: configuration that runs code, and lockfiles.
	{Match: MatchName, Name: ".npmrc", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPackages, Why: "npm outside the cage reads it (node-options, script-shell, registries)"},
	{Match: MatchName, Name: ".yarnrc", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPackages, Why: "yarn outside the cage reads it (yarn-path runs a file)"},
	{Match: MatchName, Name: ".yarnrc.yml", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPackages, Why: "yarn outside the cage reads it (yarnPath, plugins run files)"},
	{Match: MatchName, Name: ".pnpmfile.cjs", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPackages, Why: "pnpm outside the cage runs it"},
	{Match: MatchName, Name: "package-lock.json", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "npm-shrinkwrap.json", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "yarn.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "pnpm-lock.yaml", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "bun.lockb", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "bun.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "deno.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "go.sum", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "go.work.sum", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "Cargo.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "poetry.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "Pipfile.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "uv.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "pdm.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "composer.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "Gemfile.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "mix.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "pubspec.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "Podfile.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "flake.lock", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "packages.lock.json", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},
	{Match: MatchName, Name: "gradle.lockfile", Tier: TierEdit, Cage: HeldWritable, Reader: ReaderPackages, Why: whyLockfile},

	// Settings and secrets programs load.
	{Match: MatchPrefix, Name: ".env", Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPrograms, Why: "programs load it as settings and secrets (.env, .env.production, …)"},

	// The system (outside every writable root the cage mounts it read-only
	// anyway; a writable root there is held all the same).
	{Match: MatchSystem, Name: "/etc", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPrograms, Why: "system configuration"},
	{Match: MatchSystem, Name: "/usr", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPrograms, Why: "installed programs"},
	{Match: MatchSystem, Name: "/boot", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderPrograms, Why: "the kernel and boot loader"},
	{Match: MatchSystem, Name: "/var/spool/cron", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "cron runs the jobs it holds"},
	{Match: MatchSystem, Name: "/Library/LaunchDaemons", Dir: true, Tier: TierEdit, Cage: HeldReadOnly, Reader: ReaderShell, Why: "launchd starts them"},
}

// ProtectedTable returns the one list (a copy), for the cage's tests, the
// readers' inventory and documentation.
func ProtectedTable() []ProtectedEntry { return append([]ProtectedEntry(nil), protectedTable...) }
