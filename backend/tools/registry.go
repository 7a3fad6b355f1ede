package tools

import (
	"fmt"
	"sort"
	"sync"
)

// Registry holds the tools a session can call, by name.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// NewRegistry returns a registry holding the given tools.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range ts {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Wrapped returns a registry holding every tool of r as wrap returns it:
// the gate's and the checkpoint hook's views of the one registry
// tools.Builtins builds (backend/assemble), not a second set of tools.
func (r *Registry) Wrapped(wrap func(Tool) Tool) (*Registry, error) {
	out := &Registry{tools: map[string]Tool{}}
	for _, t := range r.List() {
		if err := out.Register(wrap(t)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Register adds a tool. A second tool with the same name is an error.
func (r *Registry) Register(t Tool) error {
	if t == nil || t.Name() == "" {
		return fmt.Errorf("tools: register: tool without a name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name()]; dup {
		return fmt.Errorf("tools: register: %q already registered", t.Name())
	}
	r.tools[t.Name()] = t
	return nil
}

// Get returns the tool with that name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// List returns every tool, sorted by name.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}
