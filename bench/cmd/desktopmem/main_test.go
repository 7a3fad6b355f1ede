package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/warden-dev/warden/bench/desktopmem"
)

func TestEnvFlag(t *testing.T) {
	cases := []struct {
		name string
		in   string
		ok   bool
	}{
		{"key and value", "JSC_useJIT=0", true},
		{"empty value", "GDK_GL=", true},
		{"no equals sign", "GDK_GL", false},
		{"no key", "=1", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e envFlag
			err := e.Set(c.in)
			if (err == nil) != c.ok {
				t.Fatalf("Set(%q) = %v, want ok %v", c.in, err, c.ok)
			}
			if c.ok && e.String() != c.in {
				t.Errorf("String() = %q, want %q", e.String(), c.in)
			}
		})
	}
}

func TestReportMedians(t *testing.T) {
	reading := func(app, web int64) desktopmem.Reading {
		return desktopmem.Reading{
			Processes: []desktopmem.Process{
				{Name: "warden-desktop", Mem: desktopmem.Usage{PSS: app}},
				{Name: "WebKitWebProces", Mem: desktopmem.Usage{PSS: web}},
			},
			Total: desktopmem.Usage{PSS: app + web},
		}
	}
	cases := []struct {
		name string
		rs   []desktopmem.Reading
		want string
	}{
		{"odd count takes the middle", []desktopmem.Reading{reading(100*1024, 50*1024), reading(90*1024, 40*1024), reading(300*1024, 10*1024)},
			"median of 3: total PSS 150.0 MB; warden-desktop 100.0 MB; WebKitWebProces 40.0 MB"},
		{"even count takes the mean of the middle two", []desktopmem.Reading{reading(100*1024, 0), reading(200*1024, 0)},
			"median of 2: total PSS 150.0 MB; warden-desktop 150.0 MB"},
		{"no readings, no summary", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			report(&b, c.rs)
			if c.want == "" {
				if b.Len() != 0 {
					t.Fatalf("output %q, want none", b.String())
				}
				return
			}
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("output:\n%s\nwant it to contain %q", b.String(), c.want)
			}
		})
	}
}
