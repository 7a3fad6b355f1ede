package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

//go:embed browser_action.md
var actionDescription string

// ActionTool is browser.action: one browser step per call.
type ActionTool = tools.Typed[Action]

// NewActionTool returns browser.action driving m's browser.
func NewActionTool(m *Manager) *ActionTool {
	t := actionTool{m: m}
	return tools.NewTyped(tools.Spec[Action]{Name: "browser.action", Description: actionDescription, Risk: policy.RiskMedium,
		Decode: ParseAction, Schema: json.RawMessage(actionSchema), Effects: t.effects, Invoke: t.invoke})
}

// actionTool runs actions in its manager's browser.
type actionTool struct{ m *Manager }

// effects: navigate carries its target origin; every other action carries
// the origin of the page it will act on, which is the session's current one.
func (t actionTool) effects(a Action, env tools.Env) ([]policy.Effect, error) {
	eff, err := actionEffect(a, OriginOf(t.m.CurrentURL(env.SessionID)))
	if err != nil {
		return nil, err
	}
	return []policy.Effect{eff}, nil
}

func actionEffect(a Action, current string) (policy.Effect, error) {
	if a.Action == VerbNavigate {
		return policy.Effect{Kind: policy.EffectBrowser, Action: VerbNavigate, Origin: a.origin}, nil
	}
	if current == "" {
		return policy.Effect{}, fmt.Errorf("%s needs an open page: navigate to an http(s) URL first", a.Action)
	}
	return policy.Effect{Kind: policy.EffectBrowser, Action: a.Action, Origin: current}, nil
}

func (t actionTool) invoke(ctx context.Context, a Action, env tools.Env) (tools.Result, error) {
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	s, err := t.m.session(env.SessionID, networkAllowed(env.Sandbox))
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	s.mu.Lock()
	leave := s.egress.enter(env.Egress)
	res, err := t.m.runCtx(ctx, s, a)
	leave()
	s.mu.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	steps := refusedTargets([]stepResult{res}, tools.RefusedConnections(env.Egress))
	return withRefusals(stepsResult(steps, steps[0].Text), env), nil
}

// refusedTargets marks a navigate whose own target the proxy refused as
// failed: the page it "loaded" is the proxy's refusal, not the site.
func refusedTargets(steps []stepResult, refused []string) []stepResult {
	for i, st := range steps {
		if st.Action != VerbNavigate || !st.OK {
			continue
		}
		u, _, err := TargetOrigin(st.URL)
		if err != nil {
			continue
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		dest := policy.Destination{Host: policy.CanonicalHost(u.Hostname()), Port: atoiOr0(port)}.String()
		for _, line := range refused {
			if strings.HasPrefix(line, "network: "+dest+" refused") {
				steps[i].OK = false
				steps[i].Text = fmt.Sprintf("navigation to %s was refused by Warden's proxy", st.URL)
			}
		}
	}
	return steps
}

// withRefusals tells the model which of the page's hosts were refused and
// how to allow each.
func withRefusals(r tools.Result, env tools.Env) tools.Result {
	lines := tools.RefusedConnections(env.Egress)
	if len(lines) == 0 || len(r.Content) == 0 {
		return r
	}
	r.Content[0].Text += "\n" + strings.Join(lines, "\n")
	return r
}

func atoiOr0(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// networkAllowed mirrors the sandbox axis for the request filter.
func networkAllowed(sb policy.SandboxPolicy) bool {
	switch sb.Kind {
	case policy.DangerFullAccess:
		return true
	case policy.WorkspaceWrite:
		return sb.NetworkAccess
	}
	return false
}

// stepsResult renders step results for the model: a summary line, the page
// each step ended on, screenshots as images, and the steps as structured
// JSON for the UI.
func stepsResult(steps []stepResult, summary string) tools.Result {
	var r tools.Result
	text := summary
	last := steps[len(steps)-1]
	if last.OK {
		text += fmt.Sprintf("\npage: %s (title %q)", orBlank(last.URL), last.Title)
	}
	r.Content = append(r.Content, tools.Content{Type: "text", Text: text})
	for _, s := range steps {
		if s.image != nil {
			r.Content = append(r.Content, tools.Content{Type: "image", MimeType: "image/png", Data: s.image})
		}
		if !s.OK {
			r.IsError = true
		}
	}
	r.Structured, _ = json.Marshal(map[string]any{"steps": steps})
	return r
}
