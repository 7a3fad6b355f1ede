/*
Package policy decides, for every tool call, allow / ask / deny.

The contract lives in shared/design/permission-model.md. Decide is pure: no
I/O, no clock, no globals. Callers resolve paths, classify trust and pass the
current time; the engine only reasons about what it is given. Shell commands
are classified by the pure package policy/shell; this package turns its
verdict into a decision.

Choices this package makes where permission-model.md is silent.

  - Decide is pure and, for calls that only read (Read and non-mutating Meta
    effects, approval not Always), allocates nothing: the returned trace is
    shared and must not be modified in place. Axes outside their enums are a
    deny, never a default.
  - Planning denies Exec even when the classifier proves it read-only: the
    contract admits only Read and Meta. A trusted server's read-only MCP tool is
    Read and runs.
  - A call with no effects, or an unknown effect kind, is "undeclared": denied
    by ReadOnly, UnknownCommand elsewhere (Never allows it, like everything the
    sandbox admits).
  - Write and Destructive effects need absolute paths; a relative one or none
    at all is a sandbox denial except under DangerFullAccess.
  - Shell commands (Exec) are classified with ClassifyShell; their resolved
    write targets are checked like file writes, except that the cage's private
    /tmp is admitted when the session is caged. Under ReadOnly a visible write,
    a destructive part or network use is denied even in the cage, so the model
    hears why instead of watching the command fail; an unproven command runs
    only in the read-only cage. "~" targets count as outside every root.
  - Loopback-only network and browser targets raise no NetworkRequest under
    WorkspaceWrite or DangerFullAccess; ReadOnly rejects the browser entirely.
    Browser verbs that only look (screenshot, text, wait...) on a remote origin
    need no network grant; navigate and verbs that act (click, fill...) do.
  - Always asks PolicyAlways plus every structural reason, so a grant for
    PolicyAlways never silences DestructiveEffect. A grant with an expiry is
    ignored when Session.Now is zero (no clock, no trust).
  - Under DangerFullAccess + OnRequest a write outside the workspace, its
    writable roots and /tmp raises OutsideWorkspace ("~" paths count as
    outside); Never still allows it. A workspace or writable root that lies
    under /tmp is the real folder: the cage's private-/tmp admission never
    covers writes into it under ReadOnly, nor a mv whose source is in it and
    whose destination is not (the file would vanish with the cage).
  - Writes into /etc, /usr, ~/.ssh, ~/.gitconfig, credential helpers' config
    (.aws, .kube, .docker), ~/.local/bin and ~/.config/{git,systemd,autostart}
    are edit-protected (ProtectedPath in every sandbox), like the cage tier.
    A file the script links to (ln, cp -l/-s) counts as written.
  - An Ask for a protected path carries AlwaysRefused: the prompt offers
    only "once", since no grant ever covers ProtectedPath.
  - Protected paths match by component anywhere in a path (sub/.envrc,
    web/yarn.lock, .git/worktrees/x/config); Config.ProtectedPaths match by
    prefix. Visible writes to them raise ProtectedPath in every sandbox, and
    no grant covers ProtectedPath: each such write is approved on its own,
    since the file tools' signature is their bare name.
  - Signatures: a monitor.start with a command shares the shell signature of
    that command. `git push` without remote/branch is git-push:(default)/(current).
    A plain command keeps its head signature only when it is read-only or
    unproven and not an interpreter or wrapper, and (unless read-only) every
    word after its head is an option its table knows harmless or an operand
    inside the project; a script's head is its resolved path. Writes, network
    and destructive commands always get their exact normalised text.
  - The claim is enforced (cage.go): every decision on a shell call carries
    the cage it runs in (Decision.Cage; on an Ask also HumanCage, which the
    gate moves into Cage when a human approves) and ends its trace with a
    "cage" step. Unasked: read-only for a command classified read-only,
    workspace-write for writes inside the roots (a /tmp write too, except
    under danger-full-access, where the host's /tmp is meant), full-access
    for one that writes elsewhere or cannot be classified, each bounded by
    the sandbox axis; no cage at all when Session.Caged is false. Under
    danger-full-access only a command that claims the network (or a
    full-access one) gets the proxy. A grant stands for a human's answer only
    when its signature is the exact command (shell=...): a head grant allows
    a family, which runs in the claim's cage. The human's cage is the
    sandbox axis: the host under danger-full-access, with the protected
    paths the prompt showed the command writing let through (Approved).
  - "escalate" on a command raises Escalation, and a file tool's read of a
    path the cage hides (Config.Secrets, SecretPaths) raises SecretRead,
    unless the workspace itself lies inside that hidden folder. Both are
    denied under Never (no human asked) and, like ProtectedPath, never
    covered by a grant and never offered "always". A read that touches a
    secret leaves the allocation-free fast path.
*/

package policy
