package assemble

import (
	"context"
	"path/filepath"
	"slices"
	"time"
)

// WritableRoots lists every folder a caged call of any session may write:
// the workspaces the store knows (every session's), each session's
// writable roots, the configured default ones and the workspace this front
// end was opened on. Warden loads no code or asset from inside one of them
// (readers.CheckLoad): the browser's driver, Node and Chromium, `warden
// serve`'s static assets. Listed fresh, at most once a second.
func (g *Graph) WritableRoots(ctx context.Context) []string {
	g.rootsMu.Lock()
	defer g.rootsMu.Unlock()
	if g.roots != nil && time.Since(g.rootsAt) < time.Second {
		return slices.Clone(g.roots)
	}
	out := []string{}
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(g.workspace)
	for _, r := range g.Config.Sandbox.WritableRoots {
		add(r)
	}
	if g.Store != nil {
		if wss, err := g.Store.Workspaces(ctx); err == nil {
			for _, ws := range wss {
				add(ws.Path)
				sess, err := g.Store.Sessions(ctx, ws.ID)
				if err != nil {
					continue
				}
				for _, s := range sess {
					for _, r := range s.Sandbox.WritableRoots {
						add(r)
					}
				}
			}
		}
	}
	g.roots, g.rootsAt = out, time.Now()
	return slices.Clone(out)
}
