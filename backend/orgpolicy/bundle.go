package orgpolicy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/policy"
)

// Bundle is a parsed policy.toml: the ceilings, the organisation's rules
// and when the bundle stops being valid.
type Bundle struct {
	File   string
	Digest string // sha256:<hex> of the file's bytes
	// Expires is when the bundle stops applying (zero: never).
	Expires time.Time
	Org     policy.Org
	// MCP are the servers allowed, by name and policy hash
	// (mcp.ServerConfig.PolicyHash); "any" allows every launch config.
	MCP   []MCPServer
	Rules []policy.Rule
	// Telemetry is the organisation's [telemetry] (nil: none): every key
	// it sets is pinned over the user's, and required = true keeps the
	// export on whatever the user says (config.ApplyOrgTelemetry).
	Telemetry *config.TelemetrySection
}

// MCPServer is one entry of the MCP allowlist.
type MCPServer struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Answerer kinds the bundle may list.
var answererKinds = []string{"command", "model", "human", "remote"}

type bundleFile struct {
	Version   *int              `toml:"version"`
	Expires   any               `toml:"expires"`
	Approval  *approvalSection  `toml:"approval"`
	Sandbox   *sandboxSection   `toml:"sandbox"`
	Network   *networkSection   `toml:"network"`
	MCP       *mcpSection       `toml:"mcp"`
	Answerers *answerersSection `toml:"answerers"`
	Grants    *grantsSection    `toml:"grants"`
	Rules     *rulesSection     `toml:"rules"`
	Rule      []ruleEntry       `toml:"rule"`
	// Telemetry is config's own table (its keys and checks), plus
	// required.
	Telemetry *config.TelemetrySection `toml:"telemetry"`
}

type approvalSection struct {
	Allowed []string `toml:"allowed"`
}

type sandboxSection struct {
	Widest  *string `toml:"widest"`
	Network *bool   `toml:"network"`
}

type networkSection struct {
	Hosts []string `toml:"hosts"`
	Deny  []string `toml:"deny"`
}

type mcpSection struct {
	Server []MCPServer `toml:"server"`
}

type answerersSection struct {
	Allowed []string `toml:"allowed"`
}

type grantsSection struct {
	MaxDays *int `toml:"max_days"`
}

type rulesSection struct {
	UserAllow      *bool `toml:"user_allow"`
	WorkspaceAllow *bool `toml:"workspace_allow"`
}

const bundleKeys = `version, expires; [approval] allowed; [sandbox] widest, network; [network] hosts, deny; ` +
	`[[mcp.server]] name, hash; [answerers] allowed; [grants] max_days; [rules] user_allow, workspace_allow; [[rule]]; ` +
	`[telemetry] endpoint, required, headers, ca_file, cert_file, key_file, … (docs/telemetry.md)`

// Digest is the digest every decision the policy shapes names.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ParseBundle reads a policy.toml. Unknown keys, bad values and rules
// whose examples fail are errors; every problem is listed.
func ParseBundle(data []byte, file string) (*Bundle, error) {
	var f bundleFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("unknown keys %s (valid: %s)", keyList(u), bundleKeys)
	}
	b := &Bundle{File: file, Digest: Digest(data)}
	o := &b.Org
	o.File, o.Digest = file, b.Digest
	o.UserAllow = true
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if f.Version != nil && *f.Version != 1 {
		bad("version %d is not supported (this Warden reads version 1)", *f.Version)
	}
	if f.Expires != nil {
		if b.Expires, err = parseExpires(f.Expires); err != nil {
			bad("expires: %v", err)
		}
	}
	if a := f.Approval; a != nil {
		if len(a.Allowed) == 0 {
			bad("[approval] allowed is empty: list at least one of never, on-request, always")
		}
		for _, s := range a.Allowed {
			ap, err := policy.ParseApprovalPolicy(s)
			if err != nil {
				bad("[approval] allowed: %v", err)
				continue
			}
			if !slices.Contains(o.Approvals, ap) {
				o.Approvals = append(o.Approvals, ap)
			}
		}
	}
	if s := f.Sandbox; s != nil {
		if s.Widest != nil {
			k, err := policy.ParseSandboxKind(*s.Widest)
			if err != nil {
				bad("[sandbox] widest: %v", err)
			} else {
				o.Sandbox = &k
			}
		}
		if s.Network != nil {
			o.NoNetwork = !*s.Network
		}
	}
	if n := f.Network; n != nil {
		for _, h := range n.Hosts {
			p, err := policy.ParseHostPattern(h)
			if err != nil {
				bad("[network] hosts: %v", err)
				continue
			}
			o.Hosts = append(o.Hosts, p)
		}
		if n.Hosts != nil && len(n.Hosts) == 0 {
			bad("[network] hosts is empty: leave it out for no host ceiling, or set [sandbox] network = false")
		}
		for _, h := range n.Deny {
			p, err := policy.ParseHostPattern(h)
			if err != nil {
				bad("[network] deny: %v", err)
				continue
			}
			o.DenyHosts = append(o.DenyHosts, p)
		}
	}
	if m := f.MCP; m != nil {
		o.MCPRestricted = true
		seen := map[string]bool{}
		for i, s := range m.Server {
			switch {
			case strings.TrimSpace(s.Name) == "":
				bad("[[mcp.server]] #%d has no name", i+1)
				continue
			case seen[s.Name]:
				bad("[[mcp.server]] %q is listed twice", s.Name)
				continue
			case s.Hash != "any" && !validHash(s.Hash):
				bad("[[mcp.server]] %q: hash %q is not \"sha256:<64 hex digits>\" or \"any\" (warden policy show prints the hash of each configured server)", s.Name, s.Hash)
				continue
			}
			seen[s.Name] = true
			b.MCP = append(b.MCP, s)
			o.MCPServers = append(o.MCPServers, s.Name)
		}
	}
	if a := f.Answerers; a != nil {
		for _, k := range a.Allowed {
			k = strings.ToLower(strings.TrimSpace(k))
			ok := false
			for _, v := range answererKinds {
				ok = ok || v == k
			}
			if !ok {
				bad("[answerers] allowed: %q is not one of %s", k, strings.Join(answererKinds, ", "))
				continue
			}
			o.Answerers = append(o.Answerers, k)
		}
		if len(a.Allowed) == 0 {
			bad(`[answerers] allowed is empty: list at least "human"`)
		}
	}
	if g := f.Grants; g != nil && g.MaxDays != nil {
		if *g.MaxDays < 0 || *g.MaxDays > 36500 {
			bad("[grants] max_days %d is not between 0 and 36500", *g.MaxDays)
		} else if *g.MaxDays > 0 {
			o.MaxGrant = time.Duration(*g.MaxDays) * 24 * time.Hour
		} else {
			// 0 days: a grant lasts no time at all; "always" is refused
			// in effect. One second keeps the arithmetic simple.
			o.MaxGrant = time.Second
		}
	}
	if r := f.Rules; r != nil {
		if r.UserAllow != nil {
			o.UserAllow = *r.UserAllow
		}
		if r.WorkspaceAllow != nil {
			o.WorkspaceAllow = *r.WorkspaceAllow
		}
	}
	if tel := f.Telemetry; tel != nil {
		if err := checkTelemetry(tel); err != nil {
			errs = append(errs, err)
		} else {
			b.Telemetry = tel
		}
	}
	rules, err := convertRules(f.Rule, data, file, policy.TierOrg)
	if err != nil {
		errs = append(errs, err)
	} else if err := CheckRules(rules); err != nil {
		errs = append(errs, err)
	} else {
		b.Rules = rules
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return b, nil
}

// checkTelemetry refuses a [telemetry] that could not apply to any user:
// a bad value, or an export required without the endpoint it goes to (an
// export the organisation requires goes where the organisation says, not
// where a user's file points it).
func checkTelemetry(tel *config.TelemetrySection) error {
	required := tel.Required != nil && *tel.Required
	if required && (tel.Endpoint == nil || strings.TrimSpace(*tel.Endpoint) == "") {
		return errors.New("[telemetry] required = true needs endpoint in the same table: a required export goes to the organisation's collector")
	}
	if required && tel.Enabled != nil && !*tel.Enabled {
		return errors.New("[telemetry] required = true with enabled = false: choose one")
	}
	if _, _, err := config.MergeTelemetry(tel, nil, "policy.toml"); err != nil {
		return fmt.Errorf("[telemetry]: %s", strings.TrimPrefix(err.Error(), "config: "))
	}
	return nil
}

func validHash(h string) bool {
	hex, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// parseExpires reads expires: a TOML date or date-time, or a string in
// RFC 3339 or YYYY-MM-DD (midnight UTC).
func parseExpires(v any) (time.Time, error) {
	switch t := v.(type) {
	case time.Time:
		return t, nil
	case string:
		s := strings.TrimSpace(t)
		if ts, err := time.Parse(time.RFC3339, s); err == nil {
			return ts, nil
		}
		if ts, err := time.Parse("2006-01-02", s); err == nil {
			return ts, nil
		}
		return time.Time{}, fmt.Errorf("%q is not a date (2027-01-31) or an RFC 3339 time (2027-01-31T18:00:00Z)", s)
	}
	return time.Time{}, fmt.Errorf("%v is not a date", v)
}

// AllowsServer reports whether an MCP server with this policy hash may
// start under the bundle.
func (b *Bundle) AllowsServer(name, policyHash string) bool {
	if b == nil || !b.Org.MCPRestricted {
		return true
	}
	for _, s := range b.MCP {
		if s.Name == name && (s.Hash == "any" || s.Hash == policyHash) {
			return true
		}
	}
	return false
}
