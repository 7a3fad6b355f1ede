package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
)

// Version is the protocol's version, sent as "version".
const Version = 1

// Input is the one JSON object a program reads on stdin.
type Input struct {
	Version   int             `json:"version"`
	Event     string          `json:"event"` // ask | before_call | after_call
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Effects   []policy.Effect `json:"effects"`
	Reasons   []policy.Reason `json:"reasons"`
	Signature string          `json:"signature"`
	Risk      policy.Risk     `json:"risk,omitempty"`
	Session   SessionInfo     `json:"session"`
	Workspace string          `json:"workspace"`
	Axes      Axes            `json:"axes"`
	Trace     []policy.Step   `json:"trace"`
	// UserMessage is the user's last message (ask only).
	UserMessage string `json:"user_message,omitempty"`
	// Decision is the engine's decision the hook sees (hooks only).
	Decision *DecisionInfo `json:"decision,omitempty"`
	// Result is the invoked call's result (after_call only).
	Result *ResultInfo `json:"result,omitempty"`
}

// SessionInfo names the session.
type SessionInfo struct {
	ID        string                `json:"id"`
	Workspace string                `json:"workspace"`
	Approval  policy.ApprovalPolicy `json:"approval"`
	Sandbox   policy.SandboxPolicy  `json:"sandbox"`
}

// Axes are the session's two axes.
type Axes struct {
	Approval policy.ApprovalPolicy `json:"approval"`
	Sandbox  policy.SandboxPolicy  `json:"sandbox"`
}

// DecisionInfo is what the engine decided, as a hook sees it.
type DecisionInfo struct {
	Verdict   policy.Verdict  `json:"verdict"`
	Reasons   []policy.Reason `json:"reasons,omitempty"`
	Source    string          `json:"source,omitempty"`
	Layer     policy.Layer    `json:"layer,omitempty"`
	Signature string          `json:"signature,omitempty"`
}

// ResultInfo is an invoked call's result, for an after_call hook.
type ResultInfo struct {
	IsError bool   `json:"is_error"`
	Text    string `json:"text"`
}

// Output is the one JSON object a program prints.
type Output struct {
	Answer string `json:"answer"`
	Reason string `json:"reason"`
}

// Parse reads a program's stdout: exactly one JSON object (surrounding
// white space aside) whose "answer" is one of answers, and whose "reason",
// if there, is a string. Anything else is a *Failure naming what was
// wrong; who names the program.
func Parse(who string, stdout []byte, answers ...string) (Output, error) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return Output{}, failf("%s printed nothing (it must print one JSON object, {\"answer\": \"%s\", \"reason\": \"…\"})",
			who, strings.Join(answers, "|"))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return Output{}, failf("%s printed something that is not a JSON object: %s", who, quote(trimmed))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Output{}, failf("%s printed more than one JSON value: %s", who, quote(trimmed))
	}
	var out Output
	a, ok := raw["answer"]
	if !ok {
		return Output{}, failf("%s printed no \"answer\": %s", who, quote(trimmed))
	}
	if err := json.Unmarshal(a, &out.Answer); err != nil {
		return Output{}, failf("%s printed an \"answer\" that is not a string: %s", who, quote(a))
	}
	if r, ok := raw["reason"]; ok && string(r) != "null" {
		if err := json.Unmarshal(r, &out.Reason); err != nil {
			return Output{}, failf("%s printed a \"reason\" that is not a string: %s", who, quote(r))
		}
	}
	out.Reason = Clean(out.Reason)
	for _, w := range answers {
		if out.Answer == w {
			return out, nil
		}
	}
	return Output{}, failf("%s answered %s, which is not %s", who, quote([]byte(out.Answer)), orList(answers))
}

// quote shows at most 120 characters of what a program printed, cleaned.
func quote(b []byte) string {
	s := Clean(string(b))
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func orList(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}
