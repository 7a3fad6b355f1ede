package tools

import (
	"context"
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
}

// MonitorStart is the monitor.start tool.
type MonitorStart struct{ m *Monitors }

// NewMonitorStart returns monitor.start over m.
func NewMonitorStart(m *Monitors) *MonitorStart { return &MonitorStart{m: m} }

func (*MonitorStart) Name() string { return "monitor.start" }
func (*MonitorStart) Description() string {
	return "Start a background monitor: a long-running command in the sandbox, or a watch on a file or folder. " +
		"Its output lines and change events stream to the session; it stops with the session or monitor.stop."
}
func (*MonitorStart) Schema() json.RawMessage { return SchemaOf[MonitorStartParams]() }
func (*MonitorStart) Risk() policy.Risk       { return policy.RiskMedium }

func parseMonitorStart(args json.RawMessage, env Env) (MonitorSpec, error) {
	p, err := decodeArgs[MonitorStartParams](args)
	if err != nil {
		return MonitorSpec{}, err
	}
	cmd, watch := strings.TrimSpace(p.Command) != "", p.WatchPath != ""
	if cmd == watch {
		return MonitorSpec{}, errors.New("give exactly one of command or watch_path")
	}
	spec := MonitorSpec{Name: p.Name, Command: p.Command, Expose: p.Expose}
	if len(p.Expose) > 0 && !cmd {
		return spec, errors.New("expose applies to a command, not to watch_path")
	}
	if len(p.Expose) > sandbox.MaxExposed {
		return spec, fmt.Errorf("expose: at most %d ports", sandbox.MaxExposed)
	}
	for _, port := range p.Expose {
		if port < 1 || port > 65535 {
			return spec, fmt.Errorf("expose: %d is not a port from 1 to 65535", port)
		}
	}
	if cmd {
		if spec.Cwd, err = resolveDir(env, p.Cwd); err != nil {
			return spec, err
		}
		return spec, nil
	}
	if p.Cwd != "" {
		return spec, errors.New("cwd applies to a command, not to watch_path")
	}
	if spec.WatchPath, err = ResolvePath(env.Workspace, p.WatchPath); err != nil {
		return spec, fmt.Errorf("watch_path: %w", err)
	}
	return spec, nil
}

// Effects: a command monitor does what shell.exec does (it is not a read);
// a watch only reads.
func (*MonitorStart) Effects(args json.RawMessage, env Env) ([]policy.Effect, error) {
	spec, err := parseMonitorStart(args, env)
	if err != nil {
		return nil, err
	}
	if spec.Command != "" {
		return []policy.Effect{{Kind: policy.EffectExec, Command: spec.Command, Cwd: spec.Cwd, Links: policy.ShellLinks(spec.Command, spec.Cwd, os.Readlink)}}, nil
	}
	return []policy.Effect{{Kind: policy.EffectRead, Paths: []string{spec.WatchPath}}}, nil
}

func (t *MonitorStart) Invoke(_ context.Context, args json.RawMessage, env Env) (Result, error) {
	spec, err := parseMonitorStart(args, env)
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

// MonitorList is the monitor.list tool.
type MonitorList struct{ m *Monitors }

// NewMonitorList returns monitor.list over m.
func NewMonitorList(m *Monitors) *MonitorList { return &MonitorList{m: m} }

func (*MonitorList) Name() string { return "monitor.list" }
func (*MonitorList) Description() string {
	return "List this session's background monitors with their state and last output lines."
}
func (*MonitorList) Schema() json.RawMessage { return SchemaOf[struct{}]() }
func (*MonitorList) Risk() policy.Risk       { return policy.RiskLow }

func (*MonitorList) Effects(args json.RawMessage, _ Env) ([]policy.Effect, error) {
	if _, err := decodeArgs[struct{}](args); err != nil {
		return nil, err
	}
	return []policy.Effect{{Kind: policy.EffectMeta}}, nil
}

func (t *MonitorList) Invoke(_ context.Context, args json.RawMessage, env Env) (Result, error) {
	if _, err := decodeArgs[struct{}](args); err != nil {
		return ErrorResult(err.Error()), nil
	}
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

// MonitorStop is the monitor.stop tool.
type MonitorStop struct{ m *Monitors }

// NewMonitorStop returns monitor.stop over m.
func NewMonitorStop(m *Monitors) *MonitorStop { return &MonitorStop{m: m} }

func (*MonitorStop) Name() string { return "monitor.stop" }
func (*MonitorStop) Description() string {
	return "Stop one of this session's background monitors (its process group is killed)."
}
func (*MonitorStop) Schema() json.RawMessage { return SchemaOf[MonitorStopParams]() }
func (*MonitorStop) Risk() policy.Risk       { return policy.RiskLow }

func (*MonitorStop) Effects(args json.RawMessage, _ Env) ([]policy.Effect, error) {
	if _, err := decodeArgs[MonitorStopParams](args); err != nil {
		return nil, err
	}
	return []policy.Effect{{Kind: policy.EffectMeta}}, nil
}

func (t *MonitorStop) Invoke(_ context.Context, args json.RawMessage, env Env) (Result, error) {
	p, err := decodeArgs[MonitorStopParams](args)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
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
type MonitorRead struct{ m *Monitors }

// NewMonitorRead returns monitor.read over m.
func NewMonitorRead(m *Monitors) *MonitorRead { return &MonitorRead{m: m} }

func (*MonitorRead) Name() string { return "monitor.read" }
func (*MonitorRead) Description() string {
	return "Read a background monitor's output lines (or change events) from a line number on, optionally waiting " +
		"for new ones; the result says the monitor's state and the next line number to read from."
}
func (*MonitorRead) Schema() json.RawMessage { return SchemaOf[MonitorReadParams]() }
func (*MonitorRead) Risk() policy.Risk       { return policy.RiskLow }

const maxMonitorWait = 300

func parseMonitorRead(args json.RawMessage) (MonitorReadParams, error) {
	p, err := decodeArgs[MonitorReadParams](args)
	if err != nil {
		return p, err
	}
	switch {
	case strings.TrimSpace(p.ID) == "":
		return p, errors.New("id is empty")
	case p.Since < 0, p.MaxLines < 0, p.WaitSec < 0:
		return p, errors.New("since, max_lines and wait_sec must not be negative")
	case p.WaitSec > maxMonitorWait:
		return p, fmt.Errorf("wait_sec %d is over %d", p.WaitSec, maxMonitorWait)
	}
	return p, nil
}

func (*MonitorRead) Effects(args json.RawMessage, _ Env) ([]policy.Effect, error) {
	if _, err := parseMonitorRead(args); err != nil {
		return nil, err
	}
	return []policy.Effect{{Kind: policy.EffectMeta}}, nil
}

func (t *MonitorRead) Invoke(ctx context.Context, args json.RawMessage, env Env) (Result, error) {
	p, err := parseMonitorRead(args)
	if err != nil {
		return ErrorResult(err.Error()), nil
	}
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
