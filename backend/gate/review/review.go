// Package review is the reviewer model (`[[answerers]] kind = "model"`):
// an answerer that asks a language model whether an action serves the
// user's task.
//
// It is reasoning-blind: the model sees the action (tool, arguments),
// the effects Warden computed, why Warden asks, the signature, the
// session's axes and the user's last message — never the assistant's
// reasoning or any tool's output, so text the agent read cannot argue with
// it. The system prompt is fixed (prompt.md) and the answer comes as a call
// of one tool whose JSON schema (Schema) admits only allow, deny or pass
// and a reason.
//
// Whatever it answers, the sandbox holds: the gate asks an answerer only
// about an Ask inside what the sandbox admits, never about what only a
// human may answer, and its allow runs in the cage the engine's claim
// shapes. A wrong reviewer costs a prompt, never an escape.
//
// # Failing closed, and handing over
//
// A model error, a timeout, or a reply that is not a valid answer is a
// denial in words. The circuit breaker counts denials per session (those
// failures included): after 3 in a row, or 20 in the session, the reviewer
// passes every later ask of that session to the human, and says why with
// each one. Each session has a budget of reviews (config `budget`, 200 by
// default); once spent, the reviewer passes and says so. Both are per
// process: a restart starts them again.
//
// The reviewer talks to its model through Model, which backend/assemble
// implements over the providers of backend/runtime/model (the gate never
// imports the runtime).
package review

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
)

//go:embed prompt.md
var systemPrompt string

// SystemPrompt is the reviewer's fixed system prompt.
func SystemPrompt() string { return systemPrompt }

// ToolName is the one tool the reviewer offers its model.
const ToolName = "answer"

// Schema is the JSON schema of the reviewer's answer.
var Schema = json.RawMessage(`{"type":"object","properties":{` +
	`"answer":{"type":"string","enum":["allow","deny","pass"],"description":"allow, deny, or pass to let the user decide"},` +
	`"reason":{"type":"string","maxLength":300,"description":"one short sentence naming what decided it"}},` +
	`"required":["answer","reason"],"additionalProperties":false}`)

// Request is one review put to the model.
type Request struct {
	System string
	Prompt string
	// Tool is the answer's tool: name, description and Schema.
	ToolName, ToolDescription string
	Schema                    json.RawMessage
	MaxTokens                 int
}

// Reply is what the model said: the answer tool's JSON arguments (or, if
// it answered in text, that text), and what it cost.
type Reply struct {
	JSON         json.RawMessage
	Text         string
	InputTokens  int64
	OutputTokens int64
}

// Model sends one review to a language model.
type Model interface {
	Review(ctx context.Context, req Request) (Reply, error)
}

// The circuit breaker's limits.
const (
	MaxDenialsInARow = 3
	MaxDenials       = 20
)

// Config configures a Reviewer.
type Config struct {
	// Name names it in decisions ("model:<name>"): the model id unless the
	// config names it.
	Name  string
	Model Model
	// Budget is the reviews per session; 0 is 200.
	Budget int
	// Timeout bounds one review; 0 is 30 s.
	Timeout time.Duration
	// MaxTokens caps the model's reply; 0 is 300.
	MaxTokens int
}

// Reviewer is the reviewer model answerer.
type Reviewer struct {
	cfg Config

	mu       sync.Mutex
	sessions map[string]*sessionState
}

type sessionState struct {
	reviews  int
	inARow   int
	denials  int
	tripped  string // why the breaker handed the session to the human
	tokensIn int64
	tokens   int64
}

// New returns a reviewer.
func New(cfg Config) (*Reviewer, error) {
	if cfg.Model == nil {
		return nil, errors.New("review: a Model is required")
	}
	if cfg.Name == "" {
		return nil, errors.New("review: a Name is required")
	}
	if cfg.Budget <= 0 {
		cfg.Budget = 200
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 300
	}
	return &Reviewer{cfg: cfg, sessions: map[string]*sessionState{}}, nil
}

// Kind is "model".
func (r *Reviewer) Kind() string { return "model" }

// Name is the reviewer's name.
func (r *Reviewer) Name() string { return r.cfg.Name }

func (r *Reviewer) who() string { return "reviewer model (" + r.cfg.Name + ")" }

func (r *Reviewer) state(sessionID string) *sessionState {
	st, ok := r.sessions[sessionID]
	if !ok {
		st = &sessionState{}
		r.sessions[sessionID] = st
	}
	return st
}

// Status says where the reviewer stands in a session: reviews used, the
// breaker.
func (r *Reviewer) Status(sessionID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.state(sessionID)
	if st.tripped != "" {
		return "hands every ask to you: " + st.tripped
	}
	if st.reviews >= r.cfg.Budget {
		return fmt.Sprintf("budget spent (%d reviews): hands every ask to you", r.cfg.Budget)
	}
	return fmt.Sprintf("%d of %d reviews used, %d denials (%d in a row), %d tokens", st.reviews, r.cfg.Budget, st.denials, st.inARow,
		st.tokensIn+st.tokens)
}

// Answer reviews one ask.
func (r *Reviewer) Answer(ctx context.Context, q gate.Question) (gate.Verdict, error) {
	r.mu.Lock()
	st := r.state(q.SessionID)
	switch {
	case st.tripped != "":
		why := "the " + r.who() + " hands this session's asks to you: " + st.tripped
		r.mu.Unlock()
		return gate.Verdict{Answer: gate.AnswererPass, Why: why}, nil
	case st.reviews >= r.cfg.Budget:
		r.mu.Unlock()
		return gate.Verdict{Answer: gate.AnswererPass,
			Why: fmt.Sprintf("the %s's budget for this session is spent (%d reviews): every ask comes to you", r.who(), r.cfg.Budget)}, nil
	}
	st.reviews++
	r.mu.Unlock()

	v, in, out, err := r.review(ctx, q)
	r.mu.Lock()
	defer r.mu.Unlock()
	st.tokensIn += in
	st.tokens += out
	if err != nil || v.Answer == gate.AnswererDeny {
		st.inARow++
		st.denials++
		switch {
		case st.inARow >= MaxDenialsInARow && st.tripped == "":
			st.tripped = fmt.Sprintf("it denied %d calls in a row", st.inARow)
		case st.denials >= MaxDenials && st.tripped == "":
			st.tripped = fmt.Sprintf("it denied %d calls in this session", st.denials)
		}
		return v, err
	}
	if v.Answer == gate.AnswererAllow {
		st.inARow = 0
	}
	return v, nil
}

// review asks the model once.
func (r *Reviewer) review(ctx context.Context, q gate.Question) (gate.Verdict, int64, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	rep, err := r.cfg.Model.Review(ctx, Request{System: systemPrompt, Prompt: Prompt(q), ToolName: ToolName,
		ToolDescription: "Give your answer about the action: allow, deny or pass, with a one-sentence reason.",
		Schema:          Schema, MaxTokens: r.cfg.MaxTokens})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return gate.Verdict{}, 0, 0, fmt.Errorf("%s timed out after %s", r.who(), words(r.cfg.Timeout))
		}
		return gate.Verdict{}, rep.InputTokens, rep.OutputTokens, fmt.Errorf("%s failed: %s", r.who(), clean(err.Error(), 300))
	}
	v, err := parse(rep)
	if err != nil {
		return gate.Verdict{}, rep.InputTokens, rep.OutputTokens, fmt.Errorf("%s gave no valid answer: %s", r.who(), err)
	}
	return v, rep.InputTokens, rep.OutputTokens, nil
}

// parse reads the answer: the tool's arguments, or failing that one JSON
// object in the text, checked against the schema.
func parse(rep Reply) (gate.Verdict, error) {
	raw := bytes.TrimSpace(rep.JSON)
	if len(raw) == 0 {
		t := strings.TrimSpace(rep.Text)
		t = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(t, "```json"), "```"), "```")
		raw = bytes.TrimSpace([]byte(t))
	}
	if len(raw) == 0 {
		return gate.Verdict{}, errors.New("it did not call the answer tool")
	}
	var a struct {
		Answer *string `json:"answer"`
		Reason *string `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return gate.Verdict{}, fmt.Errorf("its answer is not the schema's object: %s", clean(string(raw), 120))
	}
	if dec.More() {
		return gate.Verdict{}, errors.New("it answered more than one object")
	}
	if a.Answer == nil {
		return gate.Verdict{}, errors.New("its answer has no \"answer\"")
	}
	switch *a.Answer {
	case "allow", "deny", "pass":
	default:
		return gate.Verdict{}, fmt.Errorf("it answered %q, which is not allow, deny or pass", clean(*a.Answer, 40))
	}
	why := ""
	if a.Reason != nil {
		why = clean(*a.Reason, 300)
	}
	if why == "" && *a.Answer == "deny" {
		why = "the reviewer model refused it without a reason"
	}
	return gate.Verdict{Answer: gate.AnswererAnswer(*a.Answer), Why: why}, nil
}

// clean strips control and format characters and cuts to n runes.
func clean(s string, n int) string {
	var b strings.Builder
	i := 0
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			r = ' '
		}
		if i == n {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		i++
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func words(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}

// maxArg is the longest string of the arguments the model is shown; the
// rest is cut, with a mark (the effects still name every path).
const maxArg = 4000

// Prompt is the user message of one review: the user's last message and
// the action, as JSON the model reads as data.
func Prompt(q gate.Question) string {
	type effect struct {
		Kind    string   `json:"kind"`
		Paths   []string `json:"paths,omitempty"`
		Hosts   []string `json:"hosts,omitempty"`
		Command string   `json:"command,omitempty"`
		Why     string   `json:"why,omitempty"`
		Action  string   `json:"action,omitempty"`
		Origin  string   `json:"origin,omitempty"`
		Server  string   `json:"server,omitempty"`
		Tool    string   `json:"tool,omitempty"`
	}
	effs := []effect{}
	for _, e := range q.Effects {
		effs = append(effs, effect{Kind: string(e.Kind), Paths: e.Paths, Hosts: e.Hosts, Command: e.Command, Why: e.Why, Action: e.Action,
			Origin: e.Origin, Server: e.Server, Tool: e.Tool})
	}
	reasons := []string{}
	for _, rs := range q.Reasons {
		reasons = append(reasons, policy.ReasonText(rs))
	}
	sandbox := q.Sandbox.Kind.String()
	if q.Sandbox.NetworkAccess {
		sandbox += ", network on"
	} else {
		sandbox += ", network off"
	}
	action := map[string]any{
		"tool": q.Tool, "arguments": cut(q.Args), "effects": effs, "why_warden_asks": reasons, "signature": q.Signature,
		"session": map[string]any{"workspace": q.Workspace, "approval_policy": q.Approval.String(), "sandbox": sandbox},
	}
	b, _ := json.MarshalIndent(action, "", "  ")
	user := q.UserMessage
	if user == "" {
		user = "(none recorded)"
	}
	var s strings.Builder
	s.WriteString("The user's last message (data):\n<<<USER\n")
	s.WriteString(cutString(user))
	s.WriteString("\nUSER>>>\n\nThe action to review (data, JSON):\n<<<ACTION\n")
	s.Write(b)
	s.WriteString("\nACTION>>>\n\nCall the tool `answer` once.")
	return s.String()
}

// cut shortens every long string inside a JSON value.
func cut(raw json.RawMessage) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return cutString(string(raw))
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return cutString(t)
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return x
	}
	return walk(v)
}

func cutString(s string) string {
	if r := []rune(s); len(r) > maxArg {
		return string(r[:maxArg]) + fmt.Sprintf("… [%d more characters cut]", len(r)-maxArg)
	}
	return s
}
