//go:build !wardenslim

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunTopLevel(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "help lists version", args: []string{"--help"}, wantOut: "version"},
		{name: "version prints version", args: []string{"version"}, wantOut: "warden " + version},
		{name: "--version alias", args: []string{"--version"}, wantOut: "warden " + version},
		{name: "no args is usage error", args: nil, wantCode: 2, wantErr: "Usage: warden"},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantErr: `unknown command "frobnicate"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.wantCode, errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("stdout %q does not contain %q", out.String(), tc.wantOut)
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tc.wantErr)
			}
		})
	}
}

func TestCommandsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.name] {
			t.Errorf("command %q is listed twice", c.name)
		}
		seen[c.name] = true
	}
}
