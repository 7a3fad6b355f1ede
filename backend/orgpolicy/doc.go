/*
Package orgpolicy reads the three tiers Warden decides under — the
organisation's signed policy, the user's rules and each workspace's rules —
and compiles them into what the pure engine reads (policy.Org,
policy.RuleSet).

Files:

	/etc/warden/policy.toml        the bundle: ceilings, [[rule]]s, expires
	/etc/warden/policy.toml.sig    ssh-keygen -Y sign -f KEY -n warden-policy policy.toml
	/etc/warden/allowed_signers    ssh's allowed-signers format: the org's keys
	~/.config/warden/rules.toml    the user's [[rule]]s
	<workspace>/.warden/rules.toml the workspace's [[rule]]s (deny and ask;
	                               allow only when the bundle permits it)

The organisation folder is fixed (Dir): no flag, environment variable or
config key moves it or switches it off, so a repository's .env setting HOME
or XDG_CONFIG_HOME changes nothing about it. When allowed_signers exists the
policy fails closed: a missing, unparsable, badly signed or expired bundle is
an *Error, and every front end refuses to start a session. Without
allowed_signers a root-owned policy.toml that no one else may write applies
unsigned; any other is refused.

Choices this package makes where the issue is silent:

  - The folder and allowed_signers must also be root's and writable by no
    one else: whoever can write allowed_signers can sign any policy.
  - allowed_signers lines with cert-authority, and options other than
    namespaces, valid-after and valid-before, are refused (fail closed);
    valid-after/valid-before are honoured like ssh-keygen does.
  - Signatures in ssh-rsa (SHA-1) are refused.
  - An expired bundle is refused in unsigned mode too: it is broken the
    same way.
  - The MCP allowlist pins a server by name and its policy hash
    (mcp.ServerConfig.PolicyHash: command, args, env names, url, header
    names, sandbox; no secret values and no machine-specific folder), so
    one hash holds on every machine; "any" pins the name only.
  - A workspace's allow rules apply only when the bundle says
    [rules] workspace_allow = true; without an organisation policy they are
    ignored and reported. The user's apply unless user_allow = false.
*/
package orgpolicy
