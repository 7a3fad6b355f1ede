package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/backend/cage/readers"
	"github.com/warden-dev/warden/backend/policy"
)

// A network forwarder found by path (the CLI beside the desktop app) that
// lies in the call's workspace or a writable root is refused before the
// cage starts: a caged command could have replaced it.
func TestForwarderInAWritableRootIsRefused(t *testing.T) {
	ws := testDir(t)
	root := testDir(t)
	marker := filepath.Join(testDir(t), "ran")
	for _, dir := range []string{ws, root} {
		fw := filepath.Join(dir, "bin", "warden")
		if err := os.MkdirAll(filepath.Dir(fw), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fw, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := newCage(t, Config{Forwarder: fw})
		pol := policy.SandboxPolicy{Kind: policy.WorkspaceWrite, NetworkAccess: true, WritableRoots: []string{root}}
		_, err := c.Prepare(context.Background(), Spec{Workspace: ws, Policy: pol, Args: []string{"true"}})
		var re *readers.RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), fw) {
			t.Fatalf("forwarder %s: err = %v, want a refusal naming it", fw, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the planted forwarder ran")
		}
	}
}
