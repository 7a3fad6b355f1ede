package readers

// Reader is one program outside the cage that reads workspace bytes.
type Reader struct {
	// ID names the reader in tests and data files (stable; Name is prose).
	ID   string
	Name string
	// Reads is what of a writable root it reads as code or configuration.
	Reads string
	// Mechanism is how Warden keeps bytes a caged command wrote from
	// becoming that code or configuration.
	Mechanism string
	// Limits is what the mechanism does not stop ("" when nothing known).
	Limits string
	// Tests prove it by the outside world: "package/path.TestName".
	Tests []string
}

// Inventory lists every unconfined reader of the workspace Warden knows.
// The README's cage table and the cage package doc say the same in prose;
// TestInventoryTestsExist keeps every named test real, and
// backend/assemble.TestEveryReaderHoldsOutside walks the table: every
// reader a caged write reaches is probed there through the real gate and
// cage, with the real reader run outside afterwards (its data file,
// backend/assemble/testdata/readers_probes.txt, holds the probes).
func Inventory() []Reader {
	return []Reader{
		{
			ID:    "browser",
			Name:  "Warden's browser tool (driver, Node, Chromium)",
			Reads: "playwright-core, the Node it runs on, Chromium and the driver folder Warden lays out",
			Mechanism: "looked up only in installed locations (beside the executable, /usr/lib/warden), explicit settings and the build's source tree, " +
				"never the working directory; a candidate inside any session's workspace or writable root is refused before anything runs, " +
				"with an error naming it (CheckLoad); Warden's cache folder is hidden from the cage",
			Tests: []string{"backend/tools/browser.TestPlantedBrowserPiecesAreRefused", "backend/tools/browser.TestPlantedNodeOnPath",
				"backend/tools/browser.TestWorkingDirectoryIsNeverLookedIn", "backend/cage/readers.TestCheckLoad"},
		},
		{
			ID:    "serve-assets",
			Name:  "warden serve's static assets",
			Reads: "the built frontend it serves to the browser that signs in with the printed code",
			Mechanism: "--static, $WARDEN_STATIC or the installed copy (../share/warden/frontend beside the binary, /usr/share/warden/frontend), " +
				"never the working directory; a folder inside any session's workspace or writable root is refused, and checked again on every request",
			Tests: []string{"cmd/warden.TestServeNeverServesAPlantedFrontend"},
		},
		{
			ID:        "dev-assets",
			Name:      "the desktop development build's assets",
			Reads:     "the frontend a dev build shows without a Vite server",
			Mechanism: "only the folder $WARDEN_DEV_ASSETS names (absolute); otherwise a page that says so",
			Tests:     []string{"github.com/warden-dev/warden.TestDevAssetsNeverFromTheWorkingDirectory"},
		},
		{
			ID:        "forwarder",
			Name:      "the cage's network forwarder",
			Reads:     "the binary re-executed in the cage as its forwarder (the CLI beside the desktop app)",
			Mechanism: "it runs inside the cage; one found by path inside the call's writable roots is refused",
			Tests:     []string{"backend/cage/sandbox.TestForwarderInAWritableRootIsRefused"},
		},
		{
			ID:        "mcp-unconfined",
			Name:      "MCP servers run unconfined",
			Reads:     "the program and script a server's launch config names (sandbox = \"none\")",
			Mechanism: "a server is caged by default; an unconfined one whose program or script lies in its workspace is refused",
			Limits:    "a trusted server with sandbox = \"none\" runs whatever its program outside the workspace does",
			Tests:     []string{"backend/mcp.TestUnconfinedServerCodeOutsideTheWorkspace"},
		},
		{
			ID:    "warden-data",
			Name:  "Warden's own data",
			Reads: "its database (and -wal/-shm/-journal), config, audit key, checkpoint store and cache, wherever they are",
			Mechanism: "hidden from the cage (a read or write fails; one that does not exist cannot be created), " +
				"inside the workspace too (--db there); the engine asks before a file tool touches them",
			Tests: []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestSecretsAreHidden", "cmd/warden.TestToolProtectsWardensOwnFiles",
				"backend/assemble.TestProtectedPathsOfEveryGraph"},
		},
		{
			ID:    "git-discovery",
			Name:  "git, by its discovery rules",
			Reads: "any folder git takes for a repository (a valid HEAD, objects/, refs/: any name, the workspace root too), .git files and folders",
			Mechanism: "a repository a call makes whose config, hooks or pointers would run something is removed when a caged command ends, " +
				"and reverted from the checkpoint after any call (file tools included) before it returns, with an unsafe_change_reverted event; " +
				"git init and git clone are kept",
			Limits: "a file tool's write into a folder the checkpoint ignores is judged by the path the tool declared",
			Tests: []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestGitAttacksDoNotRunOutside", "backend/assemble.TestRepositoriesMadeByToolsDoNotRunOutside",
				"backend/cage/readers.FuzzGitDirShapes"},
		},
		{
			ID:    "git-config",
			Name:  "git, by its configuration",
			Reads: "config and every include/includeIf target, core.hooksPath and every hook after its links, files fsmonitor, filters, diff and merge drivers, editors, pagers, credential helpers and aliases name, sequencer state, worktree and submodule gitdirs",
			Mechanism: "computed at cage set-up from each repository's real config (read by git) and held read-only (new ones removed); " +
				"sequencer state a call leaves with an exec line is removed; the post-call check reverts a file tool's write to any of it",
			Limits: "what a hook runs in turn (npm test, a script it sources) is ordinary workspace code you run when you commit",
			Tests:  []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestGitAttacksDoNotRunOutside", "backend/assemble.TestRepositoriesMadeByToolsDoNotRunOutside"},
		},
		{
			ID:        "git-user-config",
			Name:      "git's user configuration (the home as a workspace)",
			Reads:     "~/.gitconfig, ~/.config/git/, ~/.git-credentials",
			Mechanism: "the one protected list: edit-protected for the engine, read-only in the cage for calls no human approved, whatever the roots",
			Tests:     []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestProtectedTableBothSides"},
		},
		{
			ID:        "other-vcs",
			Name:      "other version control",
			Reads:     ".hg/hgrc (Mercurial hooks), .jj/repo/config.toml (Jujutsu), _darcs/prefs/defaults (Darcs)",
			Mechanism: "cage-protected entries of the one list, at any depth",
			Tests:     []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestProtectedTableBothSides"},
		},
		{
			ID:        "editors",
			Name:      "editors and folder tools",
			Reads:     ".vscode/, .envrc (direnv), .exrc/.nvimrc/.nvim.lua, .vimrc, .emacs, ~/.config/nvim",
			Mechanism: "entries of the one list, read-only in the cage",
			Limits:    "editors' other project files (.idea/) are ordinary workspace files",
			Tests:     []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestProtectedTableBothSides"},
		},
		{
			ID:        "shell-desktop",
			Name:      "the shell and the desktop session",
			Reads:     "rc files, .pam_environment, ~/.local/bin, ~/.config/autostart, ~/.config/systemd, ~/.config/environment.d, desktop entries",
			Mechanism: "entries of the one list, read-only in the cage (the home as a workspace included)",
			Tests:     []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestProtectedTableBothSides", "backend/cage/sandbox.TestGitAttacksDoNotRunOutside"},
		},
		{
			ID:        "package-managers",
			Name:      "package managers",
			Reads:     ".npmrc, .yarnrc, .yarnrc.yml, .pnpmfile.cjs (settings that run code); lockfiles",
			Mechanism: "the settings are read-only in the cage; lockfiles stay writable (a package manager updates them in the cage) and a visible write asks",
			Limits:    "package.json scripts, Makefiles and tests are code you run yourself (review the diff)",
			Tests:     []string{"backend/assemble.TestEveryReaderHoldsOutside", "backend/cage/sandbox.TestProtectedTableBothSides"},
		},
		{
			ID:        "terminal",
			Name:      "the user's terminal",
			Reads:     "tool output and model text printed by warden run, warden tool --format text, audit tail, changes, mcp list, policy check",
			Mechanism: "control characters, escape sequences, C1 and bidi controls are shown as pictures (␛]52;…, ⟨U+202E⟩); the stored result keeps its bytes; the cage cannot reach Warden's terminal",
			Tests: []string{"backend/termtext.TestVisible", "backend/termtext.FuzzVisible", "cmd/warden.TestTerminalGetsTextNotControl",
				"backend/cage/sandbox.TestCageDoesNotReachWardensTerminal", "backend/cage/sandbox.TestTIOCSTIRefused"},
		},
		{
			ID:        "resolver",
			Name:      "the host's resolver",
			Reads:     "the names a caged command or a page asks the proxy for",
			Mechanism: "the proxy and the browser's egress decide on the name as given and resolve only an allowed one, then check its addresses; Chromium resolves nothing but loopback",
			Tests: []string{"backend/cage/netproxy.TestDecideBeforeResolve", "backend/gate.TestGateDecidesNamesBeforeResolving",
				"backend/assemble.TestBrowserDecidesNamesBeforeResolving"},
		},
	}
}
