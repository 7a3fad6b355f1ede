package runtime

import (
	"fmt"
	"sort"

	"github.com/warden-dev/warden/backend/tools"
)

// toolset is what a session can call: the graph's one registry (built by
// backend/assemble) with the runtime's meta tools layered on top. It is a
// view, not a second registry, so `warden tool` and `policy check` see
// exactly the tools a model sees.
type toolset struct {
	base *tools.Registry
	meta map[string]tools.Tool
}

func newToolset(base *tools.Registry, meta ...tools.Tool) (toolset, error) {
	ts := toolset{base: base, meta: map[string]tools.Tool{}}
	for _, t := range meta {
		if _, dup := base.Get(t.Name()); dup {
			return ts, fmt.Errorf("runtime: tool %q is both a meta tool and registered", t.Name())
		}
		ts.meta[t.Name()] = t
	}
	return ts, nil
}

// Get returns the tool with that name.
func (ts toolset) Get(name string) (tools.Tool, bool) {
	if t, ok := ts.meta[name]; ok {
		return t, true
	}
	return ts.base.Get(name)
}

// List returns every tool, sorted by name.
func (ts toolset) List() []tools.Tool {
	out := ts.base.List()
	for _, t := range ts.meta {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Tool returns the tool a model would get under that name (meta tools
// included), for front ends that run or explain one call.
func (s *Service) Tool(name string) (tools.Tool, bool) { return s.tools.Get(name) }

// Tools lists every tool a model may call, sorted by name.
func (s *Service) Tools() []tools.Tool { return s.tools.List() }
