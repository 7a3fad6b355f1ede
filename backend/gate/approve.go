package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/gate/ask"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// ApprovalRequest is what a human is asked on an Ask.
type ApprovalRequest struct {
	SessionID string          `json:"session_id"`
	CallID    string          `json:"call_id"`
	RequestID string          `json:"request_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Effects   []policy.Effect `json:"effects"`
	Risk      policy.Risk     `json:"risk"`
	Reasons   []policy.Reason `json:"reasons"`
	// Signature is exactly what "always" would remember.
	Signature string `json:"signature"`
	// AlwaysRefused says why "always" is not offered (a protected path is
	// approved one write at a time); empty when it is.
	AlwaysRefused string        `json:"always_refused,omitempty"`
	Preview       string        `json:"preview,omitempty"`
	Trace         []policy.Step `json:"trace"`
	// Direct marks an ask the tool raised itself (Env.Ask: present_plan),
	// not the engine: an axis change never re-decides it.
	Direct bool `json:"direct,omitempty"`
	// Answers are what the answerers said before the human was asked
	// (each passed it on, and why: a circuit breaker, a budget, a
	// reviewer unsure); Notes what the human should know about the
	// session's answerers (one left out, and why; an ask only a human may
	// answer).
	Answers []AnswerNote `json:"answers,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
}

// Approval is the answer to an ask. Always means the seat has remembered
// a grant for the signature (the gate only records it as human:always).
//
// Decided, when set, is the whole outcome, decided by something other than
// a human's yes or no: a re-decision after an axis change (sandbox-rejected,
// with its remedy), a cancel, an answerer. The gate records it and hands it
// to the model as it is; Approved and Always are then ignored. Its verdict
// must be allow or deny.
type Approval struct {
	Approved bool             `json:"approved"`
	Always   bool             `json:"always,omitempty"`
	Note     string           `json:"note,omitempty"`
	Decided  *policy.Decision `json:"decided,omitempty"`
	// Via is the front end a human answered from (FrontEnd values).
	Via string `json:"via,omitempty"`
	// On is the ask's transition a Decided answer is (cancel,
	// supersede-allow, supersede-deny, answerer-allow, answerer-deny);
	// empty reads as a supersede.
	On ask.Transition `json:"on,omitempty"`
	// Recorded says the seat already moved the ask through the gate's
	// machine and recorded this answer: Decided is the outcome and the
	// gate records nothing more.
	Recorded bool `json:"-"`
}

// Approver parks a call until a human answers. It returns an error when no
// answer can come (ctx done, nobody attached); the gate then denies.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// askCall is the call an ask is about.
type askCall struct {
	tool     tools.Tool
	args     json.RawMessage
	env      tools.Env
	effects  []policy.Effect
	call     tools.Prepared // the decoded call, when the ask is about one
	approver Approver       // the request's, else the gate's seat or Config.Approver
	session  SessionFunc    // for the network asks of the call's commands
	// risk is the prompt's badge, from the call's effects (policy.RiskOf);
	// "" for a tool's own question, which takes the tool's.
	risk   policy.Risk
	sess   policy.Session // the policy view the call was decided on
	lineup Lineup         // the session's own answerers and hooks
	// humanOnly, when set, says why only a human may answer (a network
	// destination that is not public).
	humanOnly string
}

// toolAsk is Env.Ask: a question the running tool puts to the human
// (present_plan) is an ask of its own in the same machine — recorded,
// parked on the human, answered, timed out or cancelled, recorded again —
// under its own request id, for the same call. A prior answer to it (a
// restart) stands.
func (g *Gate) toolAsk(ctx context.Context, c askCall, q tools.Question) (policy.Decision, error) {
	if q.Signature == "" {
		q.Signature = c.tool.Name()
	}
	d := policy.Decision{Verdict: policy.VerdictAsk, Reasons: []policy.Reason{}, Signature: q.Signature,
		Trace: []policy.Step{{Step: "tool", Saw: c.tool.Name() + " asks the human: " + q.Why, Concluded: "ask"}}}
	id := ask.ID{SessionID: c.env.SessionID, RequestID: g.cfg.NewID(), CallID: c.env.CallID, Tool: c.tool.Name()}
	if p := g.standing(id, d, true); p != nil {
		return stood(*p, "asked again after a restart"), nil
	}
	c.args, c.effects, c.call = q.Args, nil, nil
	return g.ask(ctx, c, d, id, true)
}

// standing is the ask of this call a human answered yes before a restart
// (restored into the machine from the log, still allowed, never started):
// same signature, a tool's own question or not like this one, and the
// engine would ask or allow now (it never stands over a Deny).
func (g *Gate) standing(id ask.ID, d policy.Decision, direct bool) *ask.Ask {
	if d.Verdict != policy.VerdictAsk && d.Verdict != policy.VerdictAllow {
		return nil
	}
	for _, a := range g.asks.ByCall(id.SessionID, id.CallID) {
		if a.State == ask.Allowed && strings.HasPrefix(a.Source, "human:") && a.Signature == d.Signature &&
			a.Question != nil && a.Question.Direct == direct && a.Tool == id.Tool {
			return &a
		}
	}
	return nil
}

// stood is the decision of a standing answer, its trace saying so.
func stood(a ask.Ask, saw string) policy.Decision {
	d := policy.Decision{Verdict: policy.VerdictAllow, Source: a.Source, Signature: a.Signature, Reasons: []policy.Reason{},
		Layer: policy.LayerHuman, LayerDetail: "before a restart"}
	if a.Question != nil {
		d.Trace = append([]policy.Step(nil), a.Question.Trace...)
	}
	d.Trace = append(d.Trace, policy.Step{Step: "resume", Saw: saw + "; request " + a.RequestID + " was answered " + a.Source,
		Concluded: "that answer stands"})
	return d
}

// ask takes an Ask to the answerers and then a human: requested, then one
// of the answers the machine allows from there, each recorded before it
// counts.
func (g *Gate) ask(ctx context.Context, c askCall, d policy.Decision, id ask.ID, direct bool) (policy.Decision, error) {
	if c.risk == "" {
		c.risk = c.tool.Risk()
	}
	req := ApprovalRequest{SessionID: c.env.SessionID, CallID: id.CallID, RequestID: id.RequestID, Tool: c.tool.Name(), Args: c.args,
		Effects: c.effects, Risk: c.risk, Reasons: d.Reasons, Signature: d.Signature, Trace: d.Trace,
		AlwaysRefused: d.AlwaysRefused, Direct: direct}
	if pv, ok := c.call.(tools.PreparedPreviewer); ok && !direct {
		if p, err := pv.Preview(c.env); err == nil {
			req.Preview = p
		} else {
			req.Preview = "no preview: " + err.Error()
		}
	} else if pv, ok := c.tool.(tools.Previewer); ok && !direct {
		if p, err := pv.Preview(c.args, c.env); err == nil {
			req.Preview = p
		} else {
			req.Preview = "no preview: " + err.Error()
		}
	}
	// What the human must read with the ask is known now: it is listed
	// with it from the moment it is recorded.
	req.Notes = append(req.Notes, c.lineup.Notes...)
	if len(g.answererList(c)) > 0 && !direct {
		if why := g.humanOnlyWhy(c, &req); why != "" {
			req.Notes = append(req.Notes, "Only you answer this ask ("+why+"): no answerer was asked.")
		}
	}
	if g.seat != nil && len(req.Notes) > 0 {
		g.seat.expect(id.RequestID, req.Notes)
	}
	if _, err := g.asks.Step(ctx, id, ask.Request, store.PermissionRequested{Args: c.args, Risk: req.Risk, Reasons: d.Reasons,
		Signature: d.Signature, Effects: c.effects, Trace: d.Trace, Preview: req.Preview, AlwaysRefused: d.AlwaysRefused,
		Direct: direct}); err != nil {
		return d, err
	}
	// The answer may be "none" because ctx ended; its record is still
	// owed to the log.
	wctx := context.WithoutCancel(ctx)
	ans, why := g.await(ctx, c, &req, id)
	if g.seat != nil {
		g.seat.drop(id.RequestID)
	}
	if why == "" && ans.Recorded {
		// The seat took the answer through the machine and recorded it:
		// the ask is decided, there is nothing left to record.
		if ans.Decided != nil {
			return *ans.Decided, nil
		}
		why = "the seat recorded an answer without its decision"
	}
	if why == "" {
		final, on, ev, err := Resolve(d, ans)
		if err == nil {
			_, err := g.asks.Step(wctx, id, on, ev)
			return final, err
		}
		why = err.Error()
	}
	final := d
	final.Reasons = nil
	final.Verdict = policy.VerdictDeny
	final.Reason, final.Detail = policy.ReasonNoApprover, why
	final.Remedy = "attach a human (the desktop app or an approval timeout), or add a grant for " + d.Signature
	final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked: " + reasonList(d.Reasons), Concluded: "deny (" + string(final.Reason) + ")"})
	return final, g.deny(wctx, id, ask.TimeOut, final)
}

// Resolve is what an answer to an ask decided on d: the outcome, the ask's
// transition and the event that records it. The gate records it; the seat
// records it itself first and hands the gate the outcome
// (Approval.Recorded). A Decided answer must allow or deny.
func Resolve(d policy.Decision, ans Approval) (policy.Decision, ask.Transition, store.Event, error) {
	if ans.Decided != nil {
		final := *ans.Decided
		switch final.Verdict {
		case policy.VerdictAllow:
			if final.Source == "" {
				final.Source = "human:once"
			}
			on := ans.On
			if on == "" {
				on = ask.SupersedeAllow
			}
			return final, on, granted(final), nil
		case policy.VerdictDeny:
			on := ans.On
			if on == "" {
				on = ask.SupersedeDeny
			}
			return final, on, denied(final), nil
		}
		return d, "", nil, fmt.Errorf("the answer decided %q, which is neither allow nor deny", final.Verdict)
	}
	final := d
	final.Reasons = nil
	final.Layer, final.LayerDetail = policy.LayerHuman, ans.Via
	if ans.Approved {
		final.Verdict, final.Source = policy.VerdictAllow, "human:once"
		on := ask.AnswerOnce
		if ans.Always && d.AlwaysRefused == "" {
			final.Source, on = "human:always", ask.AnswerAlways
		}
		final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked a human: " + reasonList(d.Reasons), Concluded: "allow (" + final.Source + ")"})
		return final, on, granted(final), nil
	}
	final.Verdict = policy.VerdictDeny
	final.Reason, final.Detail = policy.ReasonUserDenied, "a human denied the call"
	if ans.Note != "" {
		final.Detail += ": " + ans.Note
	}
	final.Trace = append(append([]policy.Step(nil), d.Trace...), policy.Step{Step: "approval", Saw: "asked: " + reasonList(d.Reasons), Concluded: "deny (" + string(final.Reason) + ")"})
	return final, ask.AnswerDeny, denied(final), nil
}

// await gets an answer — from the answerers, then the human — or the
// reason none came. What the answerers said on the way is added to req,
// so the human sees who passed the ask on, and why.
func (g *Gate) await(ctx context.Context, c askCall, req *ApprovalRequest, id ask.ID) (Approval, string) {
	ans, ok, err := g.answerers(ctx, c, req, id)
	if err != nil {
		return Approval{}, err.Error()
	}
	if ok {
		return ans, ""
	}
	human := c.approver
	if human == nil {
		human = g.cfg.Approver
	}
	if human == nil && g.seat != nil && !g.cfg.Headless {
		human = g.seat
	}
	if human == nil {
		if g.cfg.ApprovalTimeout > 0 {
			select {
			case <-ctx.Done():
				return Approval{}, "no human attached to answer; the wait was cut short: " + ctx.Err().Error()
			case <-time.After(g.cfg.ApprovalTimeout):
			}
		}
		return Approval{}, fmt.Sprintf("no human attached to answer (waited %s)", g.cfg.ApprovalTimeout)
	}
	if g.seat != nil && (len(req.Answers) > 0 || len(req.Notes) > 0) {
		g.seat.annotate(req.RequestID, req.Answers, req.Notes)
	}
	if g.cfg.ApprovalTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.cfg.ApprovalTimeout)
		defer cancel()
	}
	ans, err = human.Approve(ctx, *req)
	if err != nil {
		return Approval{}, "no answer: " + err.Error()
	}
	return ans, ""
}

// answerers asks each answerer in order (the gate's, then the session's);
// the first allow or deny answers the ask (through the seat when there is
// one, so a human answering in the same instant is arbitrated by the
// machine). Every answer is recorded with its latency. A tool's own
// question and the asks only a human may answer pass straight to the
// human. The error is for the gate itself (the log).
func (g *Gate) answerers(ctx context.Context, c askCall, req *ApprovalRequest, id ask.ID) (Approval, bool, error) {
	list := g.answererList(c)
	if len(list) == 0 || req.Direct || g.humanOnlyWhy(c, req) != "" {
		// (ask has told the human why, in the ask's notes)
		return Approval{}, false, nil
	}
	q := Question{SessionID: req.SessionID, CallID: req.CallID, RequestID: req.RequestID, Tool: req.Tool, Args: req.Args,
		Effects: req.Effects, Reasons: req.Reasons, Signature: req.Signature, Risk: req.Risk, Workspace: c.sess.Workspace,
		Approval: c.sess.Approval, Sandbox: c.sess.Sandbox, Trace: req.Trace, UserMessage: g.lastUserMessage(ctx, req.SessionID)}
	if q.Workspace == "" {
		q.Workspace, q.Sandbox = c.env.Workspace, c.env.Sandbox
	}
	for _, a := range list {
		kind, name := a.Kind(), ""
		if n, ok := a.(Named); ok {
			name = n.Name()
		}
		start := g.cfg.Now()
		v, err := a.Answer(ctx, q)
		took := g.cfg.Now().Sub(start).Milliseconds()
		switch {
		case err != nil:
			v = Verdict{Answer: AnswererDeny, Why: err.Error()}
		case v.Answer != AnswererAllow && v.Answer != AnswererDeny && v.Answer != AnswererPass:
			v = Verdict{Answer: AnswererDeny, Why: fmt.Sprintf("%s answered %q, which is not allow, deny or pass", answererName(kind, name), v.Answer)}
		}
		if err := g.recordAnswer(context.WithoutCancel(ctx), id, store.AnswererAnswered{Kind: kind, Name: name, Answer: string(v.Answer),
			Reason: v.Why, LatencyMs: took}); err != nil {
			return Approval{}, false, err
		}
		req.Answers = append(req.Answers, AnswerNote{Kind: kind, Name: name, Answer: v.Answer, Why: v.Why, LatencyMs: took})
		if v.Answer == AnswererPass {
			continue
		}
		detail := kind
		if name != "" {
			detail = kind + ":" + name
		}
		var d policy.Decision
		if v.Answer == AnswererAllow {
			d = policy.Decision{Verdict: policy.VerdictAllow, Source: "answerer:" + detail, Signature: req.Signature, Detail: v.Why}
		} else {
			d = policy.Decision{Verdict: policy.VerdictDeny, Reason: policy.ReasonAnswererDenied, Detail: v.Why,
				Signature: req.Signature, Remedy: "change the call, or ask the user to answer it themselves"}
		}
		d.Layer, d.LayerDetail = policy.LayerAnswerer, detail
		d.Trace = append(append([]policy.Step(nil), req.Trace...), policy.Step{Step: "answerer",
			Saw: fmt.Sprintf("%s answered %s in %d ms: %s", answererName(kind, name), v.Answer, took, v.Why), Concluded: string(d.Verdict)})
		on := ask.AnswererAllow
		if d.Verdict == policy.VerdictDeny {
			on = ask.AnswererDeny
		}
		ans := Approval{Decided: &d, On: on, Note: v.Why}
		if g.seat != nil && c.approver == nil && !g.cfg.Headless {
			got, err := g.seat.decideLive(ctx, req.RequestID, ans)
			if err != nil {
				return Approval{}, false, nil
			}
			return got, true, nil
		}
		return ans, true, nil
	}
	return Approval{}, false, nil
}

// answererList is the gate's answerers, then the session's.
func (g *Gate) answererList(c askCall) []Answerer {
	if len(c.lineup.Answerers) == 0 {
		return g.cfg.Answerers
	}
	return append(append([]Answerer(nil), g.cfg.Answerers...), c.lineup.Answerers...)
}

// humanOnlyWhy says why only a human may answer this ask ("" when the
// answerers may).
func (g *Gate) humanOnlyWhy(c askCall, req *ApprovalRequest) string {
	if c.humanOnly != "" {
		return c.humanOnly
	}
	sess := c.sess
	if sess.Workspace == "" {
		sess.Sandbox = c.env.Sandbox
	}
	return humanOnly(req.Reasons, req.Effects, sess)
}

// answererName is how a trace names an answerer: "command `corp-check`",
// "reviewer model (claude-haiku-4-5)".
func answererName(kind, name string) string {
	switch {
	case kind == "model" && name != "":
		return "reviewer model (" + name + ")"
	case kind == "model":
		return "reviewer model"
	case name != "":
		return kind + " `" + name + "`"
	}
	return kind
}

// lastUserMessage is the user's last message in the session, for the
// answerers ("" without a store).
func (g *Gate) lastUserMessage(ctx context.Context, sessionID string) string {
	if g.cfg.Store == nil || sessionID == "" {
		return ""
	}
	q := store.EventQuery{SessionID: sessionID, Kinds: []store.Kind{store.KindMessageAppended}, Desc: true, Limit: 256}
	for page := 0; page < 16; page++ {
		evs, err := g.cfg.Store.Events(ctx, q)
		if err != nil || len(evs) == 0 {
			return ""
		}
		for _, e := range evs {
			if m, ok := e.Event.(store.MessageAppended); ok && m.Role == "user" {
				return m.Text
			}
		}
		q.BeforeSeq = evs[len(evs)-1].Seq
	}
	return ""
}

// granted is the record of an allow.
func granted(d policy.Decision) store.PermissionGranted {
	g := store.PermissionGranted{Signature: d.Signature, Source: d.Source, Trace: d.Trace, Layer: d.Layer, LayerDetail: d.LayerDetail}
	if d.Layer == policy.LayerAnswerer {
		g.Detail = d.Detail
	}
	return g
}

func (g *Gate) deny(ctx context.Context, id ask.ID, on ask.Transition, d policy.Decision) error {
	_, err := g.asks.Step(ctx, id, on, denied(d))
	return err
}

// denied is the record of a deny.
func denied(d policy.Decision) store.PermissionDenied {
	return store.PermissionDenied{Signature: d.Signature, Reason: d.Reason, Detail: d.Detail,
		Remedy: d.Remedy, By: deniedBy(d.Reason), Trace: d.Trace, Layer: d.Layer, LayerDetail: d.LayerDetail}
}

// deniedBy says who refused, from the reason: sandbox, freeze, user, or
// no-approver for the fail-closed rest.
func deniedBy(r policy.Reason) store.DeniedBy {
	switch r {
	case policy.ReasonSandboxRejected:
		return store.DeniedBySandbox
	case policy.ReasonPlanningFreeze:
		return store.DeniedByFreeze
	case policy.ReasonUserDenied:
		return store.DeniedByUser
	}
	return store.DeniedByNoApprover
}

// denialResult is the refusal the model reads and re-plans from.
func denialResult(d policy.Decision) tools.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "denied (%s)", d.Reason)
	if d.Detail != "" {
		b.WriteString(": " + d.Detail)
	}
	if d.Remedy != "" {
		b.WriteString(". Remedy: " + d.Remedy)
	}
	return tools.ErrorResult(b.String())
}

func reasonList(rs []policy.Reason) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// cageOf gives the outcome of an ask the cage its answer earns (the claim
// is enforced, permission-model.md): a human's yes — now or before a
// restart — the whole sandbox (the engine's HumanCage, with the protected
// paths the prompt showed); any other allow (an answerer) the claim's cage;
// a re-decision after an axis change brings its own.
func cageOf(asked, final policy.Decision) policy.Decision {
	if final.Verdict != policy.VerdictAllow {
		final.Cage, final.HumanCage = nil, nil // nothing runs
		return final
	}
	if final.Layer == policy.LayerHuman {
		if asked.HumanCage != nil {
			final.Cage = policy.ApprovedByHuman(asked).Cage
		}
		final.HumanCage = nil
		return final
	}
	if final.Cage == nil {
		final.Cage = asked.Cage
	}
	final.HumanCage = nil
	return final
}
