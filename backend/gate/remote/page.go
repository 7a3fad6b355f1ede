package remote

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/reveal"
)

//go:embed page.html
var pageSource string

//go:embed remote.css
var styleSheet []byte

// Parsed on first use: most processes never serve the page, and parsing it
// at start cost every process (one `warden tool` call included) ~0.5 ms.
var pageTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("remote").Parse(pageSource)) })

// pageData is what page.html draws.
type pageData struct {
	Title   string
	Refusal string
	Done    string
	Ask     *askView
	Session template.HTML
	Action  string
	Nonce   string
	Expires string
}

// askView is an ask as the window's prompt shows it.
type askView struct {
	Tool      string
	Risk      string
	RiskLabel string
	Command   []lineView
	Invisible []string
	Cwd       template.HTML
	Path      template.HTML
	Preview   template.HTML
	Origin    template.HTML
	JSON      template.HTML
	Reasons   []string
	Signature template.HTML
	Trace     []stepView
	Answers   []string
	Notes     []template.HTML
	Mcp       *mcpView
}

type lineView struct {
	N     int
	HTML  template.HTML
	Risky bool
}

type stepView struct {
	Step      string
	Saw       template.HTML
	Concluded string
}

type mcpView struct {
	Server, Tool string
	Description  template.HTML
}

// revealHTML escapes s and draws its invisible characters as badges,
// keeping line breaks: the window's revealHtml.
func revealHTML(s string) template.HTML {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = piecesHTML(reveal.RevealLine(l))
	}
	return template.HTML(strings.Join(lines, "\n")) // #nosec: every piece is escaped by piecesHTML
}

func piecesHTML(ps []reveal.Piece) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Badge != "" {
			fmt.Fprintf(&b, `<span class="inv" title="%s">%s</span>`, html.EscapeString(p.Title), html.EscapeString(p.Badge))
			continue
		}
		b.WriteString(html.EscapeString(p.Text))
	}
	return b.String()
}

var riskLabels = map[policy.Risk]string{policy.RiskLow: "Low risk", policy.RiskMedium: "Medium risk", policy.RiskHigh: "High risk"}

// view draws an ask the way the window's prompt does (PermissionPrompt
// and ArgsView): the command with its invisible characters as badges and
// its risky lines marked, the preview for a write, the target of a browser
// action, JSON otherwise; the reasons in the words table's words.
func view(p gate.Pending) *askView {
	v := &askView{Tool: p.Tool, Risk: string(p.Risk), RiskLabel: riskLabels[p.Risk], Signature: revealHTML(p.Signature)}
	if v.RiskLabel == "" {
		v.RiskLabel = string(p.Risk)
	}
	var args map[string]any
	_ = json.Unmarshal(p.Args, &args)
	str := func(k string) string {
		s, _ := args[k].(string)
		return s
	}
	var steps []reveal.StepView
	for _, s := range p.Trace {
		steps = append(steps, reveal.StepView{Step: s.Step, Saw: s.Saw, Concluded: s.Concluded})
		v.Trace = append(v.Trace, stepView{Step: s.Step, Saw: revealHTML(s.Saw), Concluded: s.Concluded})
	}
	if cmd := str("command"); cmd != "" {
		shown := reveal.ShowCommand(cmd, reveal.RiskyPrograms(steps))
		for _, l := range shown.Lines {
			v.Command = append(v.Command, lineView{N: l.N, HTML: template.HTML(piecesHTML(l.Pieces)), Risky: l.Risky}) // #nosec: escaped
		}
		for _, in := range shown.Invisible {
			v.Invisible = append(v.Invisible, fmt.Sprintf("%s %s ×%d", in.Label, in.Name, in.Count))
		}
		if cwd := str("cwd"); cwd != "" {
			v.Cwd = revealHTML(cwd)
		}
	}
	switch {
	case p.Preview != "":
		v.Preview = revealHTML(p.Preview)
		if path := str("path"); path != "" {
			v.Path = revealHTML(path)
		}
	case str("url") != "":
		o := str("url")
		if u, err := url.Parse(o); err == nil && u.Scheme != "" && u.Host != "" {
			o = u.Scheme + "://" + u.Host
		}
		v.Origin = revealHTML(o)
	}
	if v.Command == nil && p.Preview == "" {
		pretty, err := json.MarshalIndent(json.RawMessage(p.Args), "", "  ")
		if err != nil {
			pretty = p.Args
		}
		v.JSON = revealHTML(string(pretty))
	}
	for _, r := range p.Reasons {
		v.Reasons = append(v.Reasons, policy.ReasonText(r))
	}
	for _, a := range p.Answers {
		who := a.Kind
		if a.Name != "" {
			who += " " + a.Name
		}
		line := fmt.Sprintf("%s answered %s", who, a.Answer)
		if a.Why != "" {
			line += ": " + a.Why
		}
		v.Answers = append(v.Answers, line)
	}
	for _, n := range p.Notes {
		v.Notes = append(v.Notes, revealHTML(n))
	}
	if m := p.Mcp; m != nil {
		v.Mcp = &mcpView{Server: m.Server, Tool: m.Tool, Description: revealHTML(m.Description)}
	}
	return v
}

// axesText is a session's axes in the words table's words.
func axesText(a policy.ApprovalPolicy, sb policy.SandboxPolicy) string {
	s := policy.ApprovalWords()[a].Label + " · " + policy.SandboxWords()[sb.Kind].Label
	if sb.Kind != policy.DangerFullAccess {
		if sb.NetworkAccess {
			s += ", network on"
		} else {
			s += ", network off"
		}
	}
	return s
}

// AxesText is a session's axes in words, for Config.Session.
func AxesText(a policy.ApprovalPolicy, sb policy.SandboxPolicy) string { return axesText(a, sb) }

func clock(t time.Time) string { return t.Format("15:04:05") }
