package policy

import (
	"strings"
)

// SignatureOf is what an "always" answer for this call remembers
// (permission-model.md, "Signatures"). Namespaces never overlap: MCP tools are
// mcp-tool:..., shell commands shell:..., shell=..., ssh:... or git-...:,
// browser actions browser:..., everything else the bare tool name.
func SignatureOf(call Call) string {
	for i := range call.Effects {
		if call.Effects[i].Kind == EffectMcp {
			return mcpSignature(call, &call.Effects[i])
		}
	}
	for i := range call.Effects {
		e := &call.Effects[i]
		switch e.Kind {
		case EffectExec:
			return ClassifyShellWith(e.Command, e.Cwd, e.Links).Signature
		case EffectBrowser:
			return browserSignature(e)
		}
	}
	return call.Tool
}

func mcpSignature(call Call, e *Effect) string {
	if e.Server == "" && e.Tool == "" && strings.HasPrefix(call.Tool, "mcp-tool:") {
		return call.Tool
	}
	tool := e.Tool
	if tool == "" {
		tool = call.Tool
	}
	return "mcp-tool:" + e.Server + "/" + tool
}

func browserSignature(e *Effect) string {
	if e.Action == "navigate" || e.Action == "goto" || e.Action == "open" {
		return "browser:navigate:" + e.Origin
	}
	return "browser:" + e.Action
}
