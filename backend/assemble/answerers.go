package assemble

import (
	"context"
	"fmt"
	"github.com/warden-dev/warden/backend/policy"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/config"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/gate/lineup"
	"github.com/warden-dev/warden/backend/gate/remote"
	"github.com/warden-dev/warden/backend/gate/review"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
)

// The answerers beside the human are wired here: the lineup of each
// session (backend/gate/lineup) over the user's config, the workspace's
// trusted entries and the organisation's allowance, with command programs
// run in the graph's cage and reviewer models over the runtime's
// providers (the gate never imports the runtime).

// newLineup builds the lineup from the user's config. allowed is the
// organisation's allowance (nil: every kind).
func newLineup(c config.Config, configPath string, st *store.Store, cage *sandbox.Cage, allowed func(string) bool) (*lineup.Lineup, error) {
	apiKey := c.APIKey
	return lineup.New(lineup.Config{Answerers: c.Answerers, Hooks: c.Hooks, UserDir: lineup.Base(configPath), Store: st, Cage: cage,
		Allowed: allowed,
		Reviewer: func(s config.AnswererSpec) (gate.Answerer, error) {
			return NewReviewer(s, apiKey)
		}})
}

// NewReviewer builds the reviewer model of a `kind = "model"` entry over
// the providers every front end uses (keys from the config or the
// environment, as for the agent's own model).
func NewReviewer(s config.AnswererSpec, apiKey string) (*review.Reviewer, error) {
	p, _, err := Provider(s.Model, s.BaseURL, apiKey)
	if err != nil {
		return nil, fmt.Errorf("its model %s cannot start: %w", s.Model, err)
	}
	return review.New(review.Config{Name: s.Name, Model: ReviewModel{Provider: p}, Budget: s.Budget, Timeout: s.Timeout})
}

// ReviewModel is review.Model over a provider: one request with the fixed
// system prompt, the ask as the user's message and the answer tool; the
// reply is the tool call's arguments (or the text, if the model wrote
// one).
type ReviewModel struct{ Provider model.Provider }

// Review sends one review.
func (m ReviewModel) Review(ctx context.Context, r review.Request) (review.Reply, error) {
	req := model.Request{Messages: []model.Message{model.SystemMessage(r.System), model.UserMessage(r.Prompt)},
		Tools: []model.ToolSpec{{Name: r.ToolName, Description: r.ToolDescription, Schema: r.Schema}}, MaxTokens: r.MaxTokens}
	s, err := m.Provider.Stream(ctx, req)
	if err != nil {
		return review.Reply{}, err
	}
	resp, err := model.Collect(s, nil)
	rep := review.Reply{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, Text: resp.Message.Text()}
	if err != nil {
		return rep, err
	}
	for _, c := range resp.Message.ToolCalls {
		if c.Name == r.ToolName {
			rep.JSON = c.Args
			break
		}
	}
	return rep, nil
}

// newRemote builds the links that answer an ask from another device: they
// list and answer asks through the runtime, as the window does, and die
// with their ask (the gate's listener). A server mounting the handler sets
// the base; otherwise the first link opens [remote] address (loopback when
// unset).
func (g *Graph) newRemote(org *policy.Org) *remote.Service {
	links := remote.New(remote.Config{TTL: g.Config.Remote.TTL,
		Allowed: func() bool { return org.AnswererAllowed("remote") },
		Pending: func(ctx context.Context) ([]gate.Pending, error) {
			svc := g.mcpService.Load()
			if svc == nil {
				return nil, nil
			}
			return svc.PendingApprovals(ctx, "")
		},
		Answer: func(ctx context.Context, a gate.AnswerArgs) error {
			svc := g.mcpService.Load()
			if svc == nil {
				return runtime.ErrNoRemote
			}
			return svc.Answer(ctx, a)
		},
		Session: func(ctx context.Context, id string) (remote.Session, bool) {
			s, err := g.Store.Session(ctx, id)
			if err != nil {
				return remote.Session{}, false
			}
			return remote.Session{Title: s.Title, Workspace: s.Workspace, Axes: remote.AxesText(s.Approval, s.Sandbox)}, true
		}})
	g.Gate.Listen(links.OnGate)
	return &remote.Service{Links: links, Addr: g.Config.Remote.Address}
}
