package early

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
		want Plan
	}{
		{"proxy and command", []string{"/run/warden-fwd", Arg, "-ctl-fd", "6", "-proxy", "127.0.0.1:3128", "--", "curl", "-s", "x"},
			true, Plan{CtlFD: 6, Proxy: "127.0.0.1:3128", ProxyIP: [4]byte{127, 0, 0, 1}, ProxyPort: 3128, Argv: []string{"curl", "-s", "x"}}},
		{"expose and detect without proxy", []string{"f", Arg, "-ctl-fd", "3", "-expose", "5173", "-detect", "--", "npm", "run", "dev"},
			true, Plan{CtlFD: 3, Ports: true, Argv: []string{"npm", "run", "dev"}}},
		{"proxy and an exposed port", []string{"f", Arg, "-ctl-fd", "4", "-proxy", "127.0.0.1:3128", "-expose", "8080", "--", "node", "s.js"},
			true, Plan{CtlFD: 4, Proxy: "127.0.0.1:3128", ProxyIP: [4]byte{127, 0, 0, 1}, ProxyPort: 3128, Ports: true, Argv: []string{"node", "s.js"}}},
		{"the command's own -- and flags are its own", []string{"f", Arg, "-ctl-fd", "9", "--", "sh", "--", "-proxy"},
			true, Plan{CtlFD: 9, Argv: []string{"sh", "--", "-proxy"}}},
		{"not the forwarder", []string{"warden", "run", "--", "x"}, false, Plan{}},
		{"no arguments", []string{"warden"}, false, Plan{}},
		{"no command", []string{"f", Arg, "-ctl-fd", "6", "--"}, false, Plan{}},
		{"empty command name", []string{"f", Arg, "-ctl-fd", "6", "--", ""}, false, Plan{}},
		{"no separator", []string{"f", Arg, "-ctl-fd", "6", "ls"}, false, Plan{}},
		{"no control socket", []string{"f", Arg, "-proxy", "127.0.0.1:3128", "--", "ls"}, false, Plan{}},
		{"control socket on stdio", []string{"f", Arg, "-ctl-fd", "2", "--", "ls"}, false, Plan{}},
		{"unknown flag", []string{"f", Arg, "-ctl-fd", "6", "-verbose", "--", "ls"}, false, Plan{}},
		{"flag = form is Main's", []string{"f", Arg, "-ctl-fd=6", "--", "ls"}, false, Plan{}},
		{"missing value", []string{"f", Arg, "-ctl-fd"}, false, Plan{}},
		{"v6 proxy is Main's", []string{"f", Arg, "-ctl-fd", "6", "-proxy", "[::1]:3128", "--", "ls"}, false, Plan{}},
		{"name proxy is Main's", []string{"f", Arg, "-ctl-fd", "6", "-proxy", "localhost:3128", "--", "ls"}, false, Plan{}},
		{"port out of range", []string{"f", Arg, "-ctl-fd", "6", "-proxy", "127.0.0.1:65536", "--", "ls"}, false, Plan{}},
		{"octet out of range", []string{"f", Arg, "-ctl-fd", "6", "-proxy", "127.0.0.256:1", "--", "ls"}, false, Plan{}},
		{"leading zero octet", []string{"f", Arg, "-ctl-fd", "6", "-proxy", "127.0.0.01:1", "--", "ls"}, false, Plan{}},
		{"three octets", []string{"f", Arg, "-ctl-fd", "6", "-proxy", "127.0.1:1", "--", "ls"}, false, Plan{}},
		{"five octets", []string{"f", Arg, "-ctl-fd", "6", "-proxy", "1.2.3.4.5:1", "--", "ls"}, false, Plan{}},
		{"signed fd", []string{"f", Arg, "-ctl-fd", "+6", "--", "ls"}, false, Plan{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Parse(tc.args)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.ok, got)
			}
			if !ok {
				return
			}
			if got.CtlFD != tc.want.CtlFD || got.Proxy != tc.want.Proxy || got.ProxyIP != tc.want.ProxyIP ||
				got.ProxyPort != tc.want.ProxyPort || got.Ports != tc.want.Ports || !slices.Equal(got.Argv, tc.want.Argv) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSplitNUL(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"terminated", "a\x00bc\x00\x00", []string{"a", "bc", ""}},
		{"unterminated tail", "a\x00b", []string{"a", "b"}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitNUL([]byte(tc.in)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzParse: whatever the command line, Parse does not panic, and a plan
// it accepts is one init can act on.
func FuzzParse(f *testing.F) {
	f.Add("f\x00" + Arg + "\x00-ctl-fd\x006\x00-proxy\x00127.0.0.1:3128\x00--\x00ls")
	f.Add("f\x00" + Arg + "\x00-ctl-fd\x003\x00-expose\x005173\x00-detect\x00--\x00npm\x00run")
	f.Add("f\x00" + Arg + "\x00-proxy\x001.2.3.4:0\x00-ctl-fd")
	f.Fuzz(func(t *testing.T, line string) {
		pl, ok := Parse(splitNUL([]byte(line)))
		if !ok {
			return
		}
		if pl.CtlFD < 3 || len(pl.Argv) == 0 || pl.Argv[0] == "" {
			t.Fatalf("accepted %+v", pl)
		}
		if pl.Proxy != "" && (pl.ProxyPort < 1 || pl.ProxyPort > 65535) {
			t.Fatalf("accepted proxy %q as port %d", pl.Proxy, pl.ProxyPort)
		}
	})
}
