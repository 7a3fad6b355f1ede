package desktopmem

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestByNameAndNames(t *testing.T) {
	proc := func(name string, pss int64) Process { return Process{Name: name, Mem: Usage{PSS: pss}} }
	rs := []Reading{
		{Processes: []Process{proc("warden-desktop", 100), proc("WebKitWebProces", 90), proc("WebKitWebProces", 20)}},
		{Processes: []Process{proc("warden-desktop", 120), proc("WebKitNetworkPr", 30)}},
	}
	if got, want := ByName(rs[0]), map[string]int64{"warden-desktop": 100, "WebKitWebProces": 110}; !reflect.DeepEqual(got, want) {
		t.Errorf("ByName = %v, want %v", got, want)
	}
	if got, want := Names(rs), []string{"WebKitWebProces", "warden-desktop", "WebKitNetworkPr"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
}

func TestRunsRefusesBadInput(t *testing.T) {
	cases := []struct {
		name    string
		o       Options
		n       int
		wantErr string
	}{
		{"no runs", Options{Binary: "/bin/true"}, 0, "at least one"},
		{"a binary that is not there", Options{Binary: "testdata/no-such-binary"}, 1, "desktop binary"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Runs(context.Background(), c.o, c.n)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err = %v, want %q", err, c.wantErr)
			}
		})
	}
}
