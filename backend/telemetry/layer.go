package telemetry

import (
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
)

// The deciding layer of an exported decision. The gate records it on the
// event (PermissionGranted.Layer, PermissionDenied.Layer); events written
// before it did get the layer their source or reason implies, the same
// reading policy's layerOf makes at decision time.

func grantedLayer(e store.PermissionGranted) (policy.Layer, string) {
	if e.Layer != "" {
		return e.Layer, e.LayerDetail
	}
	switch {
	case strings.HasPrefix(e.Source, "human:"):
		return policy.LayerHuman, ""
	case strings.HasPrefix(e.Source, "session-grant:"), strings.HasPrefix(e.Source, "workspace-rule:"):
		return policy.LayerGrant, e.Source
	case strings.HasPrefix(e.Source, "trusted-mcp:"):
		return policy.LayerMcpTrust, strings.TrimPrefix(e.Source, "trusted-mcp:")
	}
	return policy.LayerPolicy, ""
}

func deniedLayer(e store.PermissionDenied) (policy.Layer, string) {
	if e.Layer != "" {
		return e.Layer, e.LayerDetail
	}
	switch e.Reason {
	case policy.ReasonPlanningFreeze:
		return policy.LayerPlanning, ""
	case policy.ReasonSandboxRejected:
		return policy.LayerSandbox, ""
	case policy.ReasonUserDenied:
		return policy.LayerHuman, ""
	}
	return policy.LayerPolicy, ""
}

// networkLayer reads a proxied connection's allowed_by or refusal: the
// [network] lists are the user's rules, a human's answer or grant is
// theirs, the rest is the approval policy.
func networkLayer(e store.NetworkConnection) (policy.Layer, string) {
	src := e.AllowedBy
	if !e.Allowed {
		src = e.Reason
	}
	switch {
	case strings.HasPrefix(src, "human:"), src == string(policy.ReasonUserDenied):
		return policy.LayerHuman, ""
	case strings.HasPrefix(src, "session-grant:"), strings.HasPrefix(src, "workspace-rule:"):
		return policy.LayerGrant, src
	case strings.HasPrefix(src, "network-allow:"), strings.HasPrefix(src, "network-deny:"), src == string(policy.ReasonHostDenied):
		return policy.LayerRule, src
	case src == string(policy.ReasonSandboxRejected):
		return policy.LayerSandbox, ""
	case src == string(policy.ReasonPlanningFreeze):
		return policy.LayerPlanning, ""
	}
	return policy.LayerPolicy, src
}

// LayerOf is the deciding layer of a decision event (granted, denied, a
// proxied connection) and its detail; ok is false for other events. The
// audit tail and the export both read it here.
func LayerOf(e store.Event) (layer policy.Layer, detail string, ok bool) {
	switch x := e.(type) {
	case store.PermissionGranted:
		layer, detail = grantedLayer(x)
	case store.PermissionDenied:
		layer, detail = deniedLayer(x)
	case store.NetworkConnection:
		layer, detail = networkLayer(x)
	default:
		return "", "", false
	}
	return layer, detail, true
}
