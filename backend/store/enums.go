package store

import (
	"fmt"

	"github.com/warden-dev/warden/backend/policy"
)

// The approval policy is stored in the sessions table as words, so the
// database reads well in sqlite3; events keep policy's own JSON.
func approvalString(a policy.ApprovalPolicy) string {
	switch a {
	case policy.OnRequest:
		return "on-request"
	case policy.Never:
		return "never"
	case policy.Always:
		return "always"
	}
	return fmt.Sprintf("unknown(%d)", int(a))
}

func parseApproval(s string) (policy.ApprovalPolicy, error) {
	switch s {
	case "on-request":
		return policy.OnRequest, nil
	case "never":
		return policy.Never, nil
	case "always":
		return policy.Always, nil
	}
	return 0, fmt.Errorf("unknown approval policy %q", s)
}
