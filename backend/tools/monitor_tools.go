package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/warden-dev/warden/backend/cage/sandbox"
	"github.com/warden-dev/warden/backend/policy"
)

// MonitorStartParams are the arguments of monitor.start.
type MonitorStartParams struct {
	Command   string `json:"command,omitempty" desc:"A long-running command (dev server, test watcher), run with bash -c in the sandbox."`
	WatchPath string `json:"watch_path,omitempty" desc:"A file or folder to watch for changes instead of a command."`
	Name      string `json:"name,omitempty" desc:"A label for the monitor."`
	Cwd       string `json:"cwd,omitempty" desc:"Working directory of the command, relative to the workspace."`
	Expose    []int  `json:"expose,omitempty" desc:"Ports the command listens on (e.g. [5173] for a dev server) to reach from the host: each gets a host loopback URL the browser tool can open."`
	Escalate  bool   `json:"escalate,omitempty" desc:"Ask a human to run the command with the sandbox's full reach: only after it failed because its cage, shaped by what the command was judged to do, refused a write."`
}

//go:embed monitor_start.md
var monitorStartDescription string

// MonitorStart is the monitor.start tool.
type MonitorStart = Typed[MonitorStartParams]

// NewMonitorStart returns monitor.start over m.
func NewMonitorStart(m *Monitors) *MonitorStart {
	t := monitorTools{m: m}
	return NewTyped(Spec[MonitorStartParams]{Name: "monitor.start", Description: monitorStartDescription, Risk: policy.RiskMedium,
		Check: checkMonitorStart, Effects: monitorStartEffects, Invoke: t.start})
}

// monitorTools are the monitor tools' calls over one Monitors.
type monitorTools struct{ m *Monitors }

func checkMonitorStart(p *MonitorStartParams) error {
	cmd, watch := strings.TrimSpace(p.Command) != "", p.WatchPath != ""
	if cmd == watch {
		return errors.New("give exactly one of command or watch_path")
	}
	if p.Escalate && !cmd {
		return errors.New("escalate applies to a command, not to watch_path")
	}
	if len(p.Expose) > 0 && !cmd {
		return errors.New("expose applies to a command, not to watch_path")
	}
	if len(p.Expose) > sandbox.MaxExposed {
		return fmt.Errorf("expose: at most %d ports", sandbox.MaxExposed)
	}
	for _, port := range p.Expose {
		if port < 1 || port > 65535 {
			return fmt.Errorf("expose: %d is not a port from 1 to 65535", port)
		}
	}
	if !cmd && p.Cwd != "" {
		return errors.New("cwd applies to a command, not to watch_path")
	}
	return nil
}

// monitorSpec resolves the monitor's paths under env.
func monitorSpec(p MonitorStartParams, env Env) (MonitorSpec, error) {
	spec := MonitorSpec{Name: p.Name, Command: p.Command, Expose: p.Expose, Escalate: p.Escalate}
	var err error
	if strings.TrimSpace(p.Command) != "" {
		spec.Cwd, err = resolveDir(env, p.Cwd)
		return spec, err
	}
	if spec.WatchPath, err = ResolvePath(env.Workspace, p.WatchPath); err != nil {
		return spec, fmt.Errorf("watch_path: %w", err)
	}
	return spec, nil
}

// monitorStartEffects: a command monitor does what shell.exec does (it is
// not a read); a watch only reads.
func monitorStartEffects(p MonitorStartParams, env Env) ([]policy.Effect, error) {
	spec, err := monitorSpec(p, env)
	if err != nil {
		return nil, err
	}
	if spec.Command != "" {
		return []policy.Effect{{Kind: policy.EffectExec, Command: spec.Command, Cwd: spec.Cwd, Links: policy.ShellLinks(spec.Command, spec.Cwd, os.Readlink),
			Escalate: spec.Escalate}}, nil
	}
	return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{spec.WatchPath}}}, nil
}

func (t monitorTools) start(_ context.Context, p MonitorStartParams, env Env) (Result, error) {
	spec, err := monitorSpec(p, env)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	info, err := t.m.Start(env, spec)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	text := fmt.Sprintf("started monitor %s (%s)", info.ID, info.Name)
	for _, e := range info.Exposed {
		text += fmt.Sprintf("\nport %d of the cage is reachable at %s", e.CagePort, e.URL)
	}
	return monitorResult(text, info), nil
}

// MonitorListParams are the arguments of monitor.list: none.
type MonitorListParams struct{}

//go:embed monitor_list.md
var monitorListDescription string

// MonitorList is the monitor.list tool.
type MonitorList = Typed[MonitorListParams]

// NewMonitorList returns monitor.list over m.
func NewMonitorList(m *Monitors) *MonitorList {
	t := monitorTools{m: m}
	return NewTyped(Spec[MonitorListParams]{Name: "monitor.list", Description: monitorListDescription, Risk: policy.RiskLow,
		Effects: func(MonitorListParams, Env) ([]policy.Effect, error) { return metaEffect(), nil }, Invoke: t.list})
}

// metaEffect is the effect of a call that talks only to the runtime.
func metaEffect() []policy.Effect { return []policy.Effect{{Kind: policy.EffectMeta}} }

func (t monitorTools) list(_ context.Context, _ MonitorListParams, env Env) (Result, error) {
	list := t.m.List(env.SessionID)
	if len(list) == 0 {
		return TextResult("no monitors running"), nil
	}
	var b strings.Builder
	for _, i := range list {
		state := "running"
		if !i.Running {
			state = "ended"
			if i.ExitCode != nil {
				state = fmt.Sprintf("exited %d", *i.ExitCode)
			}
		}
		what := i.Command
		if i.Kind == "watch" {
			what = "watch " + i.WatchPath
		}
		fmt.Fprintf(&b, "%s %s [%s] %s\n", i.ID, i.Name, state, what)
		for _, l := range i.Tail {
			b.WriteString("    " + l + "\n")
		}
	}
	res := TextResult(strings.TrimRight(b.String(), "\n"))
	res.Structured, _ = json.Marshal(map[string]any{"monitors": list})
	return res, nil
}

// MonitorStopParams are the arguments of monitor.stop.
type MonitorStopParams struct {
	ID string `json:"id" desc:"The monitor id from monitor.start or monitor.list."`
}

//go:embed monitor_stop.md
var monitorStopDescription string

// MonitorStop is the monitor.stop tool.
type MonitorStop = Typed[MonitorStopParams]

// NewMonitorStop returns monitor.stop over m.
func NewMonitorStop(m *Monitors) *MonitorStop {
	t := monitorTools{m: m}
	return NewTyped(Spec[MonitorStopParams]{Name: "monitor.stop", Description: monitorStopDescription, Risk: policy.RiskLow,
		Effects: func(MonitorStopParams, Env) ([]policy.Effect, error) { return metaEffect(), nil }, Invoke: t.stop})
}

func (t monitorTools) stop(_ context.Context, p MonitorStopParams, env Env) (Result, error) {
	info, err := t.m.StopBecause(env.SessionID, p.ID, "stopped by the model (monitor.stop)")
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
	return monitorResult("stopped monitor "+info.ID, info), nil
}

func monitorResult(text string, info MonitorInfo) Result {
	res := TextResult(text)
	res.Structured, _ = json.Marshal(info)
	return res
}

// MonitorReadParams are the arguments of monitor.read.
type MonitorReadParams struct {
	ID       string `json:"id" desc:"The monitor id from monitor.start or monitor.list."`
	Since    int    `json:"since,omitempty" desc:"First line number to return (lines are numbered from 1); pass the previous read's next to get only new output."`
	MaxLines int    `json:"max_lines,omitempty" desc:"At most this many lines (default 200)."`
	WaitSec  int    `json:"wait_sec,omitempty" desc:"When there is nothing new, wait up to this many seconds (at most 300) for output or the monitor's end."`
}

// MonitorRead is the monitor.read tool: a monitor's output since a line,
// optionally waiting for more, so the model can follow a dev server or a
// test watcher it started.
type MonitorRead = Typed[MonitorReadParams]

//go:embed monitor_read.md
var monitorReadDescription string

// NewMonitorRead returns monitor.read over m.
func NewMonitorRead(m *Monitors) *MonitorRead {
	t := monitorTools{m: m}
	return NewTyped(Spec[MonitorReadParams]{Name: "monitor.read", Description: monitorReadDescription, Risk: policy.RiskLow,
		Check:   checkMonitorRead,
		Effects: func(MonitorReadParams, Env) ([]policy.Effect, error) { return metaEffect(), nil }, Invoke: t.read})
}

const maxMonitorWait = 300

func checkMonitorRead(p *MonitorReadParams) error {
	switch {
	case strings.TrimSpace(p.ID) == "":
		return errors.New("id is empty")
	case p.Since < 0, p.MaxLines < 0, p.WaitSec < 0:
		return errors.New("since, max_lines and wait_sec must not be negative")
	case p.WaitSec > maxMonitorWait:
		return fmt.Errorf("wait_sec %d is over %d", p.WaitSec, maxMonitorWait)
	}
	return nil
}

func (t monitorTools) read(ctx context.Context, p MonitorReadParams, env Env) (Result, error) {
	page, err := t.m.Read(ctx, env.SessionID, p.ID, p.Since, p.MaxLines, time.Duration(p.WaitSec)*time.Second)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return ErrorResult(err.Error()), nil
	}
	state := "running"
	if !page.Info.Running {
		state = "ended"
		if page.Info.ExitCode != nil {
			state = fmt.Sprintf("exited %d", *page.Info.ExitCode)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s [%s]", page.Info.ID, page.Info.Name, state)
	if page.Dropped > 0 {
		fmt.Fprintf(&b, "; %d earlier lines are no longer kept", page.Dropped)
	}
	if len(page.Lines) == 0 {
		b.WriteString("; no new output")
	} else {
		fmt.Fprintf(&b, "; lines %d-%d:", page.From, page.Next-1)
	}
	for _, l := range page.Lines {
		b.WriteString("\n" + l)
	}
	fmt.Fprintf(&b, "\nnext: %d", page.Next)
	res := TextResult(b.String())
	res.Structured, _ = json.Marshal(page)
	return res, nil
}
