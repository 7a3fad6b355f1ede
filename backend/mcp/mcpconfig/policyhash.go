package mcpconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// PolicyHash is what an organisation's MCP allowlist pins a server by:
// "sha256:<hex>" of its command, args, environment variable names, URL,
// header names and sandbox setting. Unlike LaunchHash it is not keyed and
// leaves out what differs from machine to machine or is secret (env and
// header values, the workspace folder), so one hash in the policy holds on
// every machine of the organisation.
func (c ServerConfig) PolicyHash() string {
	payload, _ := json.Marshal(struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Env     []string `json:"env"`
		URL     string   `json:"url"`
		Headers []string `json:"headers,omitempty"`
		Sandbox string   `json:"sandbox,omitempty"`
	}{c.Command, c.Args, sortedKeys(c.Env), c.URL, sortedKeys(c.Headers), c.Sandbox})
	sum := sha256.Sum256(payload)
	return "sha256:" + hex.EncodeToString(sum[:])
}
