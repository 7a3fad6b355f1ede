package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// TelemetrySection is the [telemetry] table as written, in the user's file
// or in the organisation's policy (which embeds it and may add required =
// true). A nil field was not set; MergeTelemetry decides what a set field
// of one tier does to the other's.
//
//	[telemetry]
//	endpoint = "https://otel.example.com:4318"   # OTLP base URL
//	protocol = "http/protobuf"                    # the only one so far
//	headers = { Authorization = "Bearer …" }
//	ca_file = "/etc/ssl/corp-ca.pem"              # TLS: the collector's CA
//	cert_file = "/etc/warden/client.pem"          # mTLS: this machine's certificate
//	key_file = "/etc/warden/client.key"           #       and its key
//	log_arguments = false                         # true: command text and paths too
//	user_name = false                             # true: user.name on every record
//	metrics = true
//	metrics_interval = "60s"
//	outbox_max_records = 100000
//	outbox_max_age = "168h"
type TelemetrySection struct {
	Enabled         *bool             `toml:"enabled"`
	Endpoint        *string           `toml:"endpoint"`
	Protocol        *string           `toml:"protocol"`
	Headers         map[string]string `toml:"headers"`
	CAFile          *string           `toml:"ca_file"`
	CertFile        *string           `toml:"cert_file"`
	KeyFile         *string           `toml:"key_file"`
	Insecure        *bool             `toml:"insecure"`
	LogArguments    *bool             `toml:"log_arguments"`
	UserName        *bool             `toml:"user_name"`
	Metrics         *bool             `toml:"metrics"`
	MetricsInterval *string           `toml:"metrics_interval"`
	OutboxMaxRecs   *int64            `toml:"outbox_max_records"`
	OutboxMaxAge    *string           `toml:"outbox_max_age"`
	// Required is the organisation's alone: the export stays on and a user
	// cannot turn it off. In a user file it is an error.
	Required *bool `toml:"required"`
}

// Telemetry is the resolved export configuration.
type Telemetry struct {
	// Enabled: records are queued and sent. On when an endpoint is set,
	// unless enabled = false (which an organisation's required wins over).
	Enabled  bool              `json:"enabled"`
	Endpoint string            `json:"endpoint"`
	Protocol string            `json:"protocol"`
	Headers  map[string]string `json:"-"` // may hold credentials: never sent to the window
	CAFile   string            `json:"ca_file,omitempty"`
	CertFile string            `json:"cert_file,omitempty"`
	KeyFile  string            `json:"key_file,omitempty"`
	// Insecure skips verifying the collector's certificate (https only).
	Insecure        bool          `json:"insecure,omitempty"`
	LogArguments    bool          `json:"log_arguments"`
	UserName        bool          `json:"user_name"`
	Metrics         bool          `json:"metrics"`
	MetricsInterval time.Duration `json:"metrics_interval"`
	OutboxMaxRecs   int64         `json:"outbox_max_records"`
	OutboxMaxAge    time.Duration `json:"outbox_max_age"`
	// Required and Pinned say what the organisation decided: the export
	// cannot be turned off, and the named keys are the org's.
	Required bool     `json:"required"`
	Pinned   []string `json:"pinned,omitempty"`
}

// Telemetry protocols.
const (
	ProtocolHTTPProtobuf = "http/protobuf"
)

// DefaultTelemetry is the export with nothing configured: off.
func DefaultTelemetry() Telemetry {
	return Telemetry{Protocol: ProtocolHTTPProtobuf, Metrics: true, MetricsInterval: time.Minute,
		OutboxMaxRecs: 100_000, OutboxMaxAge: 7 * 24 * time.Hour}
}

// MergeTelemetry resolves the export from the organisation's section (nil
// when it has none) and the user's (nil likewise). Every key the
// organisation sets is pinned: the user's value for it is ignored and
// reported. Headers merge by name, the organisation's winning. With the
// organisation's required = true, the export is on whatever the user says,
// and it needs an endpoint from one of the two tiers. where names the
// user's file in messages.
func MergeTelemetry(org, user *TelemetrySection, where string) (Telemetry, []string, error) {
	t := DefaultTelemetry()
	var warnings []string
	if user != nil && user.Required != nil {
		return t, nil, fmt.Errorf("config: %s: telemetry.required is the organisation's setting, not a user's", where)
	}
	if err := t.apply(user, where); err != nil {
		return t, nil, err
	}
	if org != nil {
		pinned := org.keys()
		for _, k := range pinned {
			if k == "headers" {
				continue
			}
			if user.has(k) && !org.sameAs(user, k) {
				warnings = append(warnings, fmt.Sprintf("%s: telemetry.%s is set by your organisation and your value is ignored", where, k))
			}
		}
		if user != nil {
			for name := range user.Headers {
				if _, ok := org.Headers[name]; ok {
					warnings = append(warnings, fmt.Sprintf("%s: telemetry header %q is set by your organisation and your value is ignored", where, name))
				}
			}
		}
		userHeaders := t.Headers
		if err := t.apply(org, "the organisation's policy"); err != nil {
			return t, nil, err
		}
		if len(userHeaders) > 0 || len(org.Headers) > 0 {
			h := map[string]string{}
			for k, v := range userHeaders {
				h[k] = v
			}
			for k, v := range org.Headers {
				h[k] = v
			}
			t.Headers = h
		}
		t.Pinned = pinned
		if org.Required != nil && *org.Required {
			t.Required = true
			if user != nil && user.Enabled != nil && !*user.Enabled {
				warnings = append(warnings, fmt.Sprintf("%s: telemetry.enabled = false is ignored: your organisation requires the export", where))
			}
			t.Enabled = true
			if t.Endpoint == "" {
				return t, warnings, fmt.Errorf("config: the organisation requires telemetry but no tier names an endpoint")
			}
		}
	}
	if t.Enabled && t.Endpoint == "" {
		return t, warnings, fmt.Errorf("config: %s: telemetry is enabled but has no endpoint", where)
	}
	return t, warnings, nil
}

// apply lays one tier's set keys over t, validating them.
func (t *Telemetry) apply(s *TelemetrySection, where string) error {
	if s == nil {
		return nil
	}
	if s.Endpoint != nil {
		ep := strings.TrimSpace(*s.Endpoint)
		if ep != "" {
			u, err := url.Parse(ep)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("config: %s: telemetry.endpoint %q is not an http:// or https:// URL (the collector's OTLP/HTTP address, like https://otel.example.com:4318)", where, ep)
			}
		}
		t.Endpoint = ep
		t.Enabled = ep != ""
	}
	if s.Enabled != nil {
		t.Enabled = *s.Enabled
	}
	if s.Protocol != nil {
		switch *s.Protocol {
		case ProtocolHTTPProtobuf:
			t.Protocol = *s.Protocol
		default:
			return fmt.Errorf("config: %s: telemetry.protocol %q is not supported (valid: %s)", where, *s.Protocol, ProtocolHTTPProtobuf)
		}
	}
	if s.Headers != nil {
		t.Headers = map[string]string{}
		for k, v := range s.Headers {
			if k == "" || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n") {
				return fmt.Errorf("config: %s: telemetry header %q is not a valid HTTP header", where, k)
			}
			t.Headers[k] = v
		}
	}
	for _, f := range []struct {
		name string
		src  *string
		dst  *string
	}{{"ca_file", s.CAFile, &t.CAFile}, {"cert_file", s.CertFile, &t.CertFile}, {"key_file", s.KeyFile, &t.KeyFile}} {
		if f.src == nil {
			continue
		}
		if *f.src != "" && !filepath.IsAbs(*f.src) {
			return fmt.Errorf("config: %s: telemetry.%s %q is not an absolute path", where, f.name, *f.src)
		}
		*f.dst = *f.src
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return fmt.Errorf("config: %s: telemetry.cert_file and telemetry.key_file go together (mTLS needs both)", where)
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setBool(&t.Insecure, s.Insecure)
	setBool(&t.LogArguments, s.LogArguments)
	setBool(&t.UserName, s.UserName)
	setBool(&t.Metrics, s.Metrics)
	if s.MetricsInterval != nil {
		d, err := time.ParseDuration(*s.MetricsInterval)
		if err != nil || d < time.Second {
			return fmt.Errorf("config: %s: telemetry.metrics_interval %q is not a duration of at least 1s", where, *s.MetricsInterval)
		}
		t.MetricsInterval = d
	}
	if s.OutboxMaxRecs != nil {
		if *s.OutboxMaxRecs < 100 {
			return fmt.Errorf("config: %s: telemetry.outbox_max_records %d is below 100", where, *s.OutboxMaxRecs)
		}
		t.OutboxMaxRecs = *s.OutboxMaxRecs
	}
	if s.OutboxMaxAge != nil {
		d, err := time.ParseDuration(*s.OutboxMaxAge)
		if err != nil || d < time.Minute {
			return fmt.Errorf("config: %s: telemetry.outbox_max_age %q is not a duration of at least 1m", where, *s.OutboxMaxAge)
		}
		t.OutboxMaxAge = d
	}
	return nil
}

// keys lists the keys a section sets, sorted.
func (s *TelemetrySection) keys() []string {
	var k []string
	for _, name := range telemetryKeys {
		if s.has(name) {
			k = append(k, name)
		}
	}
	sort.Strings(k)
	return k
}

var telemetryKeys = []string{"enabled", "endpoint", "protocol", "headers", "ca_file", "cert_file", "key_file", "insecure",
	"log_arguments", "user_name", "metrics", "metrics_interval", "outbox_max_records", "outbox_max_age"}

func (s *TelemetrySection) field(name string) any {
	switch name {
	case "enabled":
		return s.Enabled
	case "endpoint":
		return s.Endpoint
	case "protocol":
		return s.Protocol
	case "ca_file":
		return s.CAFile
	case "cert_file":
		return s.CertFile
	case "key_file":
		return s.KeyFile
	case "insecure":
		return s.Insecure
	case "log_arguments":
		return s.LogArguments
	case "user_name":
		return s.UserName
	case "metrics":
		return s.Metrics
	case "metrics_interval":
		return s.MetricsInterval
	case "outbox_max_records":
		return s.OutboxMaxRecs
	case "outbox_max_age":
		return s.OutboxMaxAge
	}
	return nil
}

func (s *TelemetrySection) has(name string) bool {
	if s == nil {
		return false
	}
	if name == "headers" {
		return s.Headers != nil
	}
	switch v := s.field(name).(type) {
	case *bool:
		return v != nil
	case *string:
		return v != nil
	case *int64:
		return v != nil
	}
	return false
}

func (s *TelemetrySection) sameAs(o *TelemetrySection, name string) bool {
	switch a := s.field(name).(type) {
	case *bool:
		b := o.field(name).(*bool)
		return a != nil && b != nil && *a == *b
	case *string:
		b := o.field(name).(*string)
		return a != nil && b != nil && *a == *b
	case *int64:
		b := o.field(name).(*int64)
		return a != nil && b != nil && *a == *b
	}
	return false
}
