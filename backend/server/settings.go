package server

import (
	"context"
	"errors"

	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
)

// errNoSettings answers a settings method on a server built without them.
var errNoSettings = errors.New("settings are not available on this server")

type settingsHandler func(ctx context.Context, svc *settings.Service, body []byte) (any, error)

// settingsMethods is the Settings screen's API (settings.Service), served
// beside methods under the same POST /api/<Method>.
var settingsMethods = map[string]settingsHandler{
	"GetSettings": func(ctx context.Context, svc *settings.Service, _ []byte) (any, error) {
		return svc.GetSettings(ctx)
	},
	"SaveModelSettings": func(ctx context.Context, svc *settings.Service, b []byte) (any, error) {
		a, err := args[settings.ModelArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.SaveModelSettings(ctx, a)
	},
	"SaveDefaults": func(ctx context.Context, svc *settings.Service, b []byte) (any, error) {
		a, err := args[settings.Defaults](b)
		if err != nil {
			return nil, err
		}
		return svc.SaveDefaults(ctx, a)
	},
	"SaveNetworkSettings": func(ctx context.Context, svc *settings.Service, b []byte) (any, error) {
		a, err := args[settings.NetworkArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.SaveNetwork(ctx, a)
	},
	"ListModels": func(ctx context.Context, svc *settings.Service, b []byte) (any, error) {
		a, err := args[settings.ProbeArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.ListModels(ctx, a)
	},
	"TestConnection": func(ctx context.Context, svc *settings.Service, b []byte) (any, error) {
		a, err := args[settings.ProbeArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.TestConnection(ctx, a)
	},
	"McpServers": func(ctx context.Context, svc *settings.Service, _ []byte) (any, error) {
		return svc.McpServers(ctx)
	},
	"McpLog": func(ctx context.Context, svc *settings.Service, b []byte) (any, error) {
		a, err := args[settings.McpLogArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.McpLog(ctx, a)
	},
}

// settingsHandlerFor adapts a settings method to the runtime's handler
// shape, so api() serves both tables the same way.
func (s *Server) settingsHandlerFor(name string) (handler, bool) {
	h, ok := settingsMethods[name]
	if !ok {
		return nil, false
	}
	return func(ctx context.Context, _ *runtime.Service, body []byte) (any, error) {
		if s.opts.Settings == nil {
			return nil, errNoSettings
		}
		return h(ctx, s.opts.Settings, body)
	}, true
}
