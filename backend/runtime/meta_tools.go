package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// The planning tools are kind Meta: they talk only to the runtime, so the
// freeze lets them run. Neither can leave the freeze: only a human's
// approval of a presented plan, or the human's own toggle, does.

var metaEffects = []policy.Effect{{Kind: policy.EffectMeta}}

type planArgs struct {
	Plan string `json:"plan" desc:"The plan, in Markdown: the steps you will take and the files you will change."`
}

type writePlan struct{ s *Service }

func (*writePlan) Name() string { return "write_plan" }
func (*writePlan) Description() string {
	return "Write or replace your plan for this task. The first write enters the planning freeze: until the human " +
		"approves the plan (present_plan), only reads and planning tools run."
}
func (*writePlan) Schema() json.RawMessage { return tools.SchemaOf[planArgs]() }
func (*writePlan) Risk() policy.Risk       { return policy.RiskLow }
func (*writePlan) Effects(args json.RawMessage, _ tools.Env) ([]policy.Effect, error) {
	_, err := parsePlan(args, true)
	return metaEffects, err
}

func parsePlan(args json.RawMessage, need bool) (planArgs, error) {
	var p planArgs
	if len(args) > 0 {
		if err := json.Unmarshal(args, &p); err != nil {
			return p, fmt.Errorf("arguments: %w", err)
		}
	}
	if need && strings.TrimSpace(p.Plan) == "" {
		return p, errors.New("plan is empty")
	}
	return p, nil
}

func (t *writePlan) Invoke(ctx context.Context, args json.RawMessage, env tools.Env) (tools.Result, error) {
	p, err := parsePlan(args, true)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	s := t.s
	s.mu.Lock()
	s.plans[env.SessionID] = p.Plan
	s.mu.Unlock()
	root, err := s.rootSession(ctx, env.SessionID)
	if err != nil {
		return tools.Result{}, err
	}
	if !root.Planning {
		on := true
		ss, err := s.st.UpdateSessionPolicy(context.WithoutCancel(ctx), root.ID, store.PolicyUpdate{Planning: &on, By: "write_plan"})
		if err != nil {
			return tools.Result{}, err
		}
		s.publishSession(ctx, ss)
	}
	return tools.TextResult("Plan saved. The planning freeze is on: only reads and planning tools run until the human " +
		"approves the plan. Call present_plan when it is ready."), nil
}

type presentPlan struct{ s *Service }

func (*presentPlan) Name() string { return "present_plan" }
func (*presentPlan) Description() string {
	return "Show your plan to the human and ask for approval. Approval lifts the planning freeze; a refusal " +
		"comes back with the human's note."
}

type presentArgs struct {
	Plan string `json:"plan,omitempty" desc:"The plan to present; default the last one written with write_plan."`
}

func (*presentPlan) Schema() json.RawMessage { return tools.SchemaOf[presentArgs]() }
func (*presentPlan) Risk() policy.Risk       { return policy.RiskLow }
func (*presentPlan) Effects(args json.RawMessage, _ tools.Env) ([]policy.Effect, error) {
	_, err := parsePlan(args, false)
	return metaEffects, err
}

func (t *presentPlan) Invoke(ctx context.Context, args json.RawMessage, env tools.Env) (tools.Result, error) {
	p, err := parsePlan(args, false)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	s := t.s
	s.mu.Lock()
	if p.Plan == "" {
		p.Plan = s.plans[env.SessionID]
	}
	s.mu.Unlock()
	if strings.TrimSpace(p.Plan) == "" {
		return tools.ErrorResult("no plan to present: call write_plan first, or pass plan"), nil
	}
	if _, err := s.st.Append(context.WithoutCancel(ctx), env.SessionID, store.AnyVersion, store.PlanPresented{Plan: p.Plan}); err != nil {
		return tools.Result{}, err
	}
	if env.Ask == nil {
		return tools.ErrorResult("present_plan can only ask the human through the gate"), nil
	}
	raw, _ := json.Marshal(map[string]string{"plan": p.Plan})
	d, err := env.Ask(ctx, tools.Question{Signature: "present_plan", Args: raw, Why: "approve the plan and lift the planning freeze"})
	if err != nil {
		return tools.Result{}, err
	}
	if d.Verdict != policy.VerdictAllow {
		msg := "The human did not approve the plan; the freeze stays on."
		if d.Detail != "" {
			msg += " (" + string(d.Reason) + ": " + d.Detail + ")"
		}
		return tools.ErrorResult(msg), nil
	}
	root, err := s.rootSession(ctx, env.SessionID)
	if err != nil {
		return tools.Result{}, err
	}
	if root.Planning {
		off := false
		ss, err := s.st.UpdateSessionPolicy(context.WithoutCancel(ctx), root.ID, store.PolicyUpdate{Planning: &off, By: "human"})
		if err != nil {
			return tools.Result{}, err
		}
		s.publishSession(ctx, ss)
	}
	return tools.TextResult("The human approved the plan; the planning freeze is lifted. Carry it out."), nil
}

func (s *Service) rootSession(ctx context.Context, id string) (store.Session, error) {
	ss, err := s.st.Session(ctx, id)
	for depth := 0; err == nil && ss.ParentID != "" && depth < 32; depth++ {
		ss, err = s.st.Session(ctx, ss.ParentID)
	}
	return ss, err
}
