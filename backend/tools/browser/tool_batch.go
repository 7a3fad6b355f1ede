package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// maxBatch bounds one batch; longer scripts should be split so the model
// sees intermediate pages.
const maxBatch = 50

const batchDescription = `Run several browser actions in order in the session's browser tab, stopping at the first failure and reporting which step failed.
Each step has the shape of a browser.action call. Example: {"actions": [{"action": "navigate", "url": "http://localhost:8080/login"}, {"action": "fill", "selector": "#user", "value": "ann"}, {"action": "click", "selector": "text=Sign in"}, {"action": "screenshot"}]}`

// BatchTool is browser.batch: a list of actions run in order.
type BatchTool struct{ m *Manager }

// NewBatchTool returns browser.batch driving m's browser.
func NewBatchTool(m *Manager) *BatchTool { return &BatchTool{m: m} }

func (t *BatchTool) Name() string        { return "browser.batch" }
func (t *BatchTool) Description() string { return batchDescription }
func (t *BatchTool) Risk() policy.Risk   { return policy.RiskMedium }
func (t *BatchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {"actions": {"type": "array", "minItems": 1, "maxItems": 50, "items": ` +
		actionSchema + `}}, "required": ["actions"], "additionalProperties": false}`)
}

// ParseBatch decodes and checks every step; one bad step refuses the batch
// before anything runs.
func ParseBatch(raw json.RawMessage) ([]Action, error) {
	var b struct {
		Actions []json.RawMessage `json:"actions"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("invalid browser batch: %w", err)
	}
	if len(b.Actions) == 0 {
		return nil, fmt.Errorf("browser batch needs at least one action in \"actions\"")
	}
	if len(b.Actions) > maxBatch {
		return nil, fmt.Errorf("browser batch has %d actions; at most %d", len(b.Actions), maxBatch)
	}
	out := make([]Action, len(b.Actions))
	for i, r := range b.Actions {
		a, err := ParseAction(r)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		out[i] = a
	}
	return out, nil
}

// plannedOrigins says, for each step, which origin it will act on: a
// navigate's target, or the origin the previous navigate (or the current
// page) left the tab on.
func plannedOrigins(steps []Action, current string) ([]string, error) {
	out := make([]string, len(steps))
	for i, a := range steps {
		eff, err := actionEffect(a, current)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		out[i] = eff.Origin
		current = eff.Origin
	}
	return out, nil
}

// Effects lists each distinct effect of the batch once.
func (t *BatchTool) Effects(args json.RawMessage, env tools.Env) ([]policy.Effect, error) {
	steps, err := ParseBatch(args)
	if err != nil {
		return nil, err
	}
	origins, err := plannedOrigins(steps, OriginOf(t.m.CurrentURL(env.SessionID)))
	if err != nil {
		return nil, err
	}
	var effs []policy.Effect
	seen := map[[2]string]bool{}
	for i, a := range steps {
		key := [2]string{a.Action, origins[i]}
		if !seen[key] {
			seen[key] = true
			effs = append(effs, policy.Effect{Kind: policy.EffectBrowser, Action: a.Action, Origin: origins[i]})
		}
	}
	return effs, nil
}

func (t *BatchTool) Invoke(ctx context.Context, args json.RawMessage, env tools.Env) (tools.Result, error) {
	steps, err := ParseBatch(args)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	s, err := t.m.session(env.SessionID, networkAllowed(env.Sandbox))
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.egress.enter(env.Egress)()
	current, _ := s.url.Load().(string)
	origins, err := plannedOrigins(steps, OriginOf(current))
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	var done []stepResult
	for i, a := range steps {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		var res stepResult
		current, _ := s.url.Load().(string)
		if now := OriginOf(current); a.Action != VerbNavigate && now != origins[i] {
			// An earlier step (a link, a redirect) left the origin this
			// step was approved for.
			res = stepResult{Action: a.Action, URL: current,
				Text: fmt.Sprintf("not run: the tab is on %s, but this step was approved for %s", orBlank(now), origins[i])}
		} else if res, err = t.m.runCtx(ctx, s, a); err != nil {
			return tools.Result{}, err
		} else {
			res = refusedTargets([]stepResult{res}, tools.RefusedConnections(env.Egress))[0]
		}
		done = append(done, res)
		if !res.OK {
			summary := fmt.Sprintf("step %d of %d (%s) failed: %s", i+1, len(steps), a.describe(), res.Text)
			if i+1 < len(steps) {
				summary += fmt.Sprintf("\nsteps %d to %d were not run", i+2, len(steps))
			}
			return withRefusals(stepsResult(done, summary), env), nil
		}
	}
	var lines []string
	for i, r := range done {
		lines = append(lines, fmt.Sprintf("%d. %s", i+1, r.Text))
	}
	return withRefusals(stepsResult(done, fmt.Sprintf("all %d steps done\n%s", len(steps), strings.Join(lines, "\n"))), env), nil
}
