package config

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// ApplyOrg puts the organisation policy's ceilings over the resolved
// configuration: a default above a ceiling (from the user's file or a
// workspace's) is lowered to the widest value the policy permits, and a
// warning names the policy and the ceiling. The organisation tier holds
// ceilings, not defaults: nothing below a ceiling changes.
func ApplyOrg(c *Config, org *policy.Org) {
	if !org.Active() {
		return
	}
	if a, changed := org.ClampApproval(c.Approval); changed {
		c.Warnings = append(c.Warnings, fmt.Sprintf("defaults.approval %q is above the ceiling of %s (%s): new sessions start with %q",
			c.Approval, org.Name(), org.ApprovalCeiling(), a))
		c.Approval = a
	}
	if sb, changed := org.ClampSandbox(c.Sandbox); changed {
		c.Warnings = append(c.Warnings, fmt.Sprintf("defaults.sandbox %s is above the ceiling of %s (%s): new sessions start with %s",
			describeSandbox(c.Sandbox), org.Name(), org.SandboxCeiling(), describeSandbox(sb)))
		c.Sandbox = sb
	}
}

func describeSandbox(sb policy.SandboxPolicy) string {
	if sb.NetworkAccess {
		return sb.Kind.String() + " with network"
	}
	return sb.Kind.String()
}

// ApplyOrgTelemetry lays the organisation's [telemetry] (from orgFile; nil:
// none) over the user's as written (c.TelemetryUser): every key the
// organisation sets is pinned, and its required = true keeps the export on
// whatever the user's file (userFile, named in messages) says. The user's
// values it overrides are reported as warnings. It must run before anything reads c.Telemetry
// (the store's outbox, the sender): the first exported event already goes
// where the organisation says.
func ApplyOrgTelemetry(c *Config, org *TelemetrySection, orgFile, userFile string) error {
	if org == nil {
		return nil
	}
	t, warn, err := MergeTelemetry(org, c.TelemetryUser, userFile)
	if err != nil {
		return fmt.Errorf("%w (with the [telemetry] of %s)", err, orgFile)
	}
	c.Telemetry = t
	c.Warnings = append(c.Warnings, warn...)
	return nil
}

// TelemetrySetting is one value of the resolved export and where it came
// from: the organisation's file (pinned), the user's file, or the default.
type TelemetrySetting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// TelemetrySources lists the resolved export t key by key with its source,
// for `warden policy show`. Header values may hold credentials: only their
// names are listed.
func TelemetrySources(t Telemetry, user *TelemetrySection, orgFile, userFile string) []TelemetrySetting {
	var out []TelemetrySetting
	source := func(key string) string {
		switch {
		case slices.Contains(t.Pinned, key):
			return "pinned by " + orgFile
		case user.has(key):
			return userFile
		}
		return "default"
	}
	add := func(key, value string) {
		out = append(out, TelemetrySetting{Key: key, Value: value, Source: source(key)})
	}
	on, src := "off", source("enabled")
	if t.Enabled {
		on = "on"
	}
	if src == "default" {
		// Without enabled set, an endpoint turns the export on.
		src = source("endpoint")
	}
	if t.Required {
		on += " (required: a user cannot turn it off)"
		src = "pinned by " + orgFile
	}
	out = append(out, TelemetrySetting{Key: "enabled", Value: on, Source: src})
	if t.Endpoint != "" {
		add("endpoint", t.Endpoint)
	}
	add("protocol", t.Protocol)
	if len(t.Headers) > 0 {
		names := make([]string, 0, len(t.Headers))
		for k := range t.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		add("headers", strings.Join(names, ", ")+" (values not shown)")
	}
	for _, f := range []struct{ key, v string }{{"ca_file", t.CAFile}, {"cert_file", t.CertFile}, {"key_file", t.KeyFile}} {
		if f.v != "" {
			add(f.key, f.v)
		}
	}
	if t.Insecure {
		add("insecure", "true")
	}
	add("log_arguments", strconv.FormatBool(t.LogArguments))
	add("user_name", strconv.FormatBool(t.UserName))
	add("metrics", strconv.FormatBool(t.Metrics))
	add("outbox_max_records", strconv.FormatInt(t.OutboxMaxRecs, 10))
	add("outbox_max_age", t.OutboxMaxAge.String())
	return out
}
