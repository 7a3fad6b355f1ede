package runtime

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"strings"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// The planning tools are kind Meta: they talk only to the runtime, so the
// freeze lets them run. Neither can leave the freeze: only a human's
// approval of a presented plan, or the human's own toggle, does.

// metaEffects is the effect of a call that talks only to the runtime.
func metaEffects[A any](A, tools.Env) ([]policy.Effect, error) {
	return []policy.Effect{{Kind: policy.EffectMeta}}, nil
}

type planArgs struct {
	Plan string `json:"plan" desc:"The plan, in Markdown: the steps you will take and the files you will change."`
}

var (
	//go:embed write_plan.md
	writePlanDescription string
	//go:embed present_plan.md
	presentPlanDescription string
)

// newWritePlan is write_plan: the plan kept for present_plan, and the
// freeze entered.
func newWritePlan(s *Service) tools.Tool {
	return tools.NewTyped(tools.Spec[planArgs]{Name: "write_plan", Description: writePlanDescription, Risk: policy.RiskLow,
		Check: func(p *planArgs) error {
			if strings.TrimSpace(p.Plan) == "" {
				return errors.New("plan is empty")
			}
			return nil
		},
		Effects: metaEffects[planArgs], Invoke: s.writePlan})
}

func (s *Service) writePlan(ctx context.Context, p planArgs, env tools.Env) (tools.Result, error) {
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

type presentArgs struct {
	Plan string `json:"plan,omitempty" desc:"The plan to present; default the last one written with write_plan."`
}

// newPresentPlan is present_plan: the plan shown, the human asked through
// the gate (Env.Ask), the freeze lifted on a yes.
func newPresentPlan(s *Service) tools.Tool {
	return tools.NewTyped(tools.Spec[presentArgs]{Name: "present_plan", Description: presentPlanDescription, Risk: policy.RiskLow,
		Effects: metaEffects[presentArgs], Invoke: s.presentPlan})
}

func (s *Service) presentPlan(ctx context.Context, p presentArgs, env tools.Env) (tools.Result, error) {
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
