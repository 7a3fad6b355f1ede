package policy

// The human words of every reason, axis value, layer and tool, in one
// table beside the enums. The window's TypeScript is generated from it
// (scripts/apigen writes them into frontend/src/bridge/api.gen.ts), the
// TUI reads it, and words_test.go fails when a value has none.

// Words are what a value is called and one sentence on what it means.
type Words struct {
	Label string `json:"label"`
	Text  string `json:"text"`
}

// reasonWords are "Label: what it means"; a deny-only reason that needs no
// explanation is its label alone.
var reasonWords = map[Reason]string{
	ReasonSandboxRejected:    "Sandbox: the current sandbox does not allow this",
	ReasonPolicyAlways:       `Approval policy "Always ask": every action is asked`,
	ReasonDestructiveEffect:  "Destructive: can remove or overwrite work for good",
	ReasonUnknownCommand:     "Unknown command: Warden cannot tell what it does",
	ReasonNetworkRequest:     "Network: reaches the network",
	ReasonUntrustedMcpServer: "Untrusted MCP server: its tools are not trusted yet",
	ReasonProtectedPath:      "Protected path: writes where code or config runs later (git hooks, .warden, rc files, lockfiles, .env)",
	ReasonDesktopControl:     "Desktop control: moves the mouse or types on your desktop",
	ReasonOutsideWorkspace:   "Outside the workspace: writes outside the workspace, its writable roots and /tmp (Full access)",
	ReasonEscalation:         "Escalation: the command failed in the cage its classification gave it and asks to run with the sandbox's full reach",
	ReasonSecretRead:         "Secret: reads a key, credential, browser profile or Warden's own data that the sandbox hides",
	ReasonPlanningFreeze:     "Planning freeze: actions are paused while a plan is drafted",
	ReasonNoApprover:         "No approver: nobody was there to answer",
	ReasonUserDenied:         "Denied by you",
	ReasonHostDenied:         "Host denied: the network settings deny this host",
	ReasonPrivateAddress:     "Private address: a loopback, private or metadata address nobody allowed",
	ReasonAnswererDenied:     "Denied by an answerer: a reviewer you configured refused it",
	ReasonHookDenied:         "Denied by a hook: a pre-call hook you configured refused it",
	ReasonOrgCeiling:         "Organisation policy: above a limit your organisation's policy sets",
	ReasonRuleDenied:         "Rule: a deny rule matches this action",
	ReasonRuleAsk:            "Rule: an ask rule wants you to see this action",
	ReasonOrgRuleAsk:         "Organisation rule: your organisation's policy asks a human for each such action",
	ReasonHookAsked:          "Asked by a hook: a pre-call hook you configured wants a human to look at this call",
}

var approvalWords = map[ApprovalPolicy]Words{
	Never: {Label: "Never ask",
		Text: "Never asks you: runs everything the sandbox admits; what would need you is refused."},
	OnRequest: {Label: "On request",
		Text: "Asks when an action is destructive, reaches the network, touches protected files, or is unknown outside the cage."},
	Always: {Label: "Always ask", Text: "Asks you before every action (plans and questions excepted)."},
}

var sandboxWords = map[SandboxKind]Words{
	ReadOnly: {Label: "Read only", Text: "Reads anything, writes nothing: commands run in a read-only cage."},
	WorkspaceWrite: {Label: "Workspace write",
		Text: "Writes only in the workspace and its writable roots: commands run in the cage, network only when turned on."},
	DangerFullAccess: {Label: "Full access",
		Text: "Can write anywhere and reach the network: a command runs in the cage its classification gives it, and as you only once you approve it."},
}

var layerWords = map[Layer]Words{
	LayerPlanning: {Label: "Planning freeze", Text: "the planning freeze decided it"},
	LayerSandbox:  {Label: "Sandbox", Text: "the session's sandbox decided it"},
	LayerOrg:      {Label: "Organisation", Text: "your organisation's policy decided it"},
	LayerRule:     {Label: "Rule", Text: "a user or workspace rule decided it"},
	LayerPolicy:   {Label: "Approval policy", Text: "the session's approval policy decided it"},
	LayerGrant:    {Label: "Grant", Text: "a standing grant allowed it"},
	LayerMcpTrust: {Label: "Trusted MCP server", Text: "a trusted MCP server's read-only tool"},
	LayerAnswerer: {Label: "Answerer", Text: "an answerer or hook you configured decided it"},
	LayerHuman:    {Label: "You", Text: "a human answered"},
}

// toolWords say what an "Always allow" of a tool's own signature (its
// name) covers, for every tool Warden has; a tool whose calls carry
// finer signatures (shell.exec, browser.action) names the whole family.
var toolWords = map[string]string{
	"fs.read":        "every file read",
	"fs.list":        "every folder listing",
	"fs.write":       "every file write, to any path the sandbox admits",
	"patch.apply":    "every patch, to any file the sandbox admits",
	"search.ripgrep": "every search with ripgrep",
	"shell.exec":     "every shell command",
	"monitor.start":  "every background process started",
	"monitor.stop":   "every background process stopped",
	"monitor.list":   "every listing of background processes",
	"monitor.read":   "every read of a background process's output",
	"computer.use":   "every mouse and keyboard action on your desktop",
	"browser.action": "every browser action, on any page",
	"browser.batch":  "every batch of browser actions",
	"write_plan":     "every plan draft",
	"present_plan":   "every plan shown to you for approval",
	"task":           "every subagent started",
	"task_result":    "every wait for a subagent's answer",
}

// The answerers beside the human (backend/gate/lineup), as Settings'
// "Answerers and hooks" and the TUI's /answerers word them. Keyed by the
// lineup's strings (policy imports no gate package); lineup's tests hold
// each table equal to its values.

// answererStateWords: where a configured answerer or hook stands for a
// session.
var answererStateWords = map[string]string{
	"active":      "Active",
	"untrusted":   "Not trusted yet — does not run",
	"changed":     "Changed since you trusted it — does not run",
	"not-allowed": "Not allowed by your organisation",
	"broken":      "Cannot start",
	"left-out":    "Ignored",
}

// answererKindWords: what an entry is, keyed "role:kind".
var answererKindWords = map[string]string{
	"answerer:command": "command answerer",
	"answerer:model":   "reviewer model",
	"hook:before":      "pre-call hook",
	"hook:after":       "after-call hook",
}

// answererTierWords: whose config an entry comes from.
var answererTierWords = map[string]string{
	"user":      "your config",
	"workspace": "this workspace's config",
}

// answerWords: an answerer's recorded answer, as a verb in the past.
var answerWords = map[string]string{
	"allow": "allowed",
	"deny":  "denied",
	"pass":  "passed",
	"ask":   "asked you",
}

// ReasonWords is the words of every reason ("Label: what it means").
func ReasonWords() map[Reason]string { return clone(reasonWords) }

// ApprovalWords is the words of every approval policy.
func ApprovalWords() map[ApprovalPolicy]Words { return clone(approvalWords) }

// SandboxWords is the words of every sandbox kind.
func SandboxWords() map[SandboxKind]Words { return clone(sandboxWords) }

// LayerWords is the words of every layer.
func LayerWords() map[Layer]Words { return clone(layerWords) }

// ToolWords is what "Always allow" of each tool's own signature covers.
func ToolWords() map[string]string { return clone(toolWords) }

// AnswererStateWords is the words of every answerer state.
func AnswererStateWords() map[string]string { return clone(answererStateWords) }

// AnswererKindWords is the words of every answerer or hook kind ("role:kind").
func AnswererKindWords() map[string]string { return clone(answererKindWords) }

// AnswererTierWords is the words of every config tier an answerer comes from.
func AnswererTierWords() map[string]string { return clone(answererTierWords) }

// AnswerWords is the words of every answer an answerer gives.
func AnswerWords() map[string]string { return clone(answerWords) }

// AnswererKindText is what an answerer or hook is ("reviewer model"); an
// unknown kind is "<kind> answerer" (or hook).
func AnswererKindText(role, kind string) string {
	if w, ok := answererKindWords[role+":"+kind]; ok {
		return w
	}
	return kind + " " + role
}

// ReasonText is a reason in words; an unknown reason is itself.
func ReasonText(r Reason) string {
	if w, ok := reasonWords[r]; ok {
		return w
	}
	return string(r)
}

func clone[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
