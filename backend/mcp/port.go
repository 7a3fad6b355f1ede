package mcp

import (
	"context"

	"github.com/warden-dev/warden/backend/mcp/mcpport"
	"github.com/warden-dev/warden/backend/tools"
)

// Port is the pool as the runtime uses it (mcpport.Pool).
func (p *Pool) Port() mcpport.Pool { return poolPort{p} }

type poolPort struct{ p *Pool }

func (pp poolPort) For(ctx context.Context, workspace string) (mcpport.Servers, error) {
	m, err := pp.p.For(ctx, workspace)
	if err != nil {
		return nil, err
	}
	return managerPort{m}, nil
}

// managerPort is a Manager as mcpport.Servers.
type managerPort struct{ m *Manager }

func (mp managerPort) Offered(ctx context.Context, owner string) []tools.Tool {
	var out []tools.Tool
	for _, a := range mp.m.Offered(ctx, owner) {
		out = append(out, a)
	}
	return out
}

func (mp managerPort) Find(owner, name string) (tools.Tool, bool) {
	if a, ok := mp.m.Find(owner, name); ok {
		return a, true
	}
	return nil, false
}

func (mp managerPort) Trust(ctx context.Context, owner, server string, persistent bool) (mcpport.Trusted, error) {
	scope := TrustSession
	if persistent {
		scope = TrustPersistent
	}
	var t mcpport.Trusted
	if err := mp.m.TrustFor(ctx, owner, server, scope); err != nil {
		return t, err
	}
	for _, st := range mp.m.StatusFor(ctx, owner) {
		if st.Name == server {
			t.ConfigHash = st.ConfigHash
			t.ToolHashes = map[string]string{}
			for _, tl := range st.Tools {
				t.ToolHashes[tl.Name] = tl.Hash
			}
		}
	}
	return t, nil
}

func (mp managerPort) Pending(ctx context.Context, owner string) []mcpport.PendingServer {
	var out []mcpport.PendingServer
	for _, st := range mp.m.Pending(ctx, owner) {
		out = append(out, mcpport.PendingServer{Name: st.Name, Source: st.Source, Transport: string(st.Transport),
			Command: st.Command, Args: st.Args, URL: st.URL, EnvNames: st.EnvNames, Workspace: st.Workspace,
			Changed: st.Trust != nil && !st.Trust.ConfigMatches})
	}
	return out
}

func (mp managerPort) SessionTrusts(owner string) []mcpport.SessionTrust {
	var out []mcpport.SessionTrust
	for _, rec := range mp.m.SessionTrusts(owner) {
		out = append(out, mcpport.SessionTrust{Server: rec.Server, TrustedAt: rec.TrustedAt})
	}
	return out
}

func (mp managerPort) UntrustSession(owner, server string) error {
	return mp.m.UntrustSession(owner, server)
}

func (mp managerPort) Untrust(ctx context.Context, owner, server string) error {
	return mp.m.UntrustFor(ctx, owner, server)
}

func (mp managerPort) Review(ctx context.Context, owner, server, tool string) (mcpport.Review, error) {
	r, err := mp.m.Review(ctx, owner, server, tool)
	return mcpport.Review{Change: r.Change, Description: r.Description, OldDescription: r.OldDescription, Schema: r.Schema}, err
}

// StatusOf reports the servers of s (from Pool.Port) with the trust that
// applies to owner, without starting any; none for servers this package did
// not make.
func StatusOf(ctx context.Context, s mcpport.Servers, owner string) []ServerStatus {
	if mp, ok := s.(managerPort); ok {
		return mp.m.StatusFor(ctx, owner)
	}
	return []ServerStatus{}
}
