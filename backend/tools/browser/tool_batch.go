package browser

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/tools"
)

// maxBatch bounds one batch; longer scripts should be split so the model
// sees intermediate pages.
const maxBatch = 50

//go:embed browser_batch.md
var batchDescription string

// Batch is browser.batch's arguments: the steps, decoded and checked.
type Batch struct {
	Actions []Action `json:"actions"`
}

// batchSchema is browser.batch's schema: a list of browser.action calls.
var batchSchema = json.RawMessage(`{"type": "object", "properties": {"actions": {"type": "array", "minItems": 1, "maxItems": 50, "items": ` +
	actionSchema + `}}, "required": ["actions"], "additionalProperties": false}`)

// BatchTool is browser.batch: a list of actions run in order.
type BatchTool = tools.Typed[Batch]

// NewBatchTool returns browser.batch driving m's browser.
func NewBatchTool(m *Manager) *BatchTool {
	t := batchTool{m: m}
	return tools.NewTyped(tools.Spec[Batch]{Name: "browser.batch", Description: batchDescription, Risk: policy.RiskMedium,
		Schema: batchSchema, Effects: t.effects, Invoke: t.invoke,
		Decode: func(raw json.RawMessage) (Batch, error) {
			steps, err := ParseBatch(raw)
			return Batch{Actions: steps}, err
		}})
}

// batchTool runs batches in its manager's browser.
type batchTool struct{ m *Manager }

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

// effects lists each distinct effect of the batch once.
func (t batchTool) effects(b Batch, env tools.Env) ([]policy.Effect, error) {
	steps := b.Actions
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

func (t batchTool) invoke(ctx context.Context, b Batch, env tools.Env) (tools.Result, error) {
	steps := b.Actions
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
