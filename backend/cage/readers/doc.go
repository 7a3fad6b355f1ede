// Package readers is the inventory of every program that runs outside the
// cage and reads bytes a caged command could have written — the unconfined
// readers of the workspace — with the mechanism that keeps those bytes from
// running there, and the rules those mechanisms share:
//
//   - Inventory (inventory.go): each reader, what it reads, how Warden
//     stops cage-written bytes from becoming its code or configuration,
//     what it does not stop, and the tests that prove it by the outside
//     world (TestInventoryTestsExist holds every named test to exist;
//     backend/assemble.TestEveryReaderHoldsOutside probes every reader a
//     caged write reaches through the real gate and cage, then runs the
//     reader outside: git, bash, dash, vim, npm).
//   - CheckLoad (load.go): Warden loads code and assets only from installed
//     locations and explicit settings, never relative to the working
//     directory and never from inside a session's workspace or writable
//     root (the browser's driver, Node and Chromium, `warden serve`'s
//     assets, the desktop's forwarder, unconfined MCP servers).
//   - Git's rules (gitdir.go, gitconfig.go, judge.go): git's discovery (any
//     folder with a valid HEAD, objects/ and refs/ is a repository, the
//     workspace root too), what a repository's real config makes git read
//     or run (Git.Held, read by git itself), and the judgement of a
//     repository or sequencer state a call made (NewGitdirDanger,
//     SequencerDanger). The cage holds the first at set-up and applies the
//     second when a call ends (backend/cage/sandbox); the gate's post-call
//     check applies both to every call's change set (backend/postcall).
//
// The package imports nothing above policy.
package readers
