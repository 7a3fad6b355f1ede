package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/warden-dev/warden/backend/policy"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
	"github.com/warden-dev/warden/backend/store"
)

// maxBody bounds a request body; API arguments are small.
const maxBody = 1 << 20

type handler func(ctx context.Context, svc *runtime.Service, body []byte) (any, error)

// args decodes a JSON body strictly into T.
func args[T any](body []byte) (T, error) {
	var v T
	if len(body) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytesReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, &badRequest{err}
	}
	return v, nil
}

type badRequest struct{ err error }

func (e *badRequest) Error() string { return "bad arguments: " + e.err.Error() }
func (e *badRequest) Unwrap() error { return e.err }

type sessionArg struct {
	SessionID string `json:"session_id"`
}

// methods is the API: the names and argument shapes of runtime.Service.
var methods = map[string]handler{
	"Info": func(ctx context.Context, svc *runtime.Service, _ []byte) (any, error) { return svc.Info(ctx) },
	"ListSessions": func(ctx context.Context, svc *runtime.Service, _ []byte) (any, error) {
		return svc.ListSessions(ctx)
	},
	"CreateSession": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[runtime.CreateSessionArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.CreateSession(ctx, a)
	},
	"RenameSession": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string `json:"session_id"`
			Title     string `json:"title"`
		}](b)
		if err != nil {
			return nil, err
		}
		return svc.RenameSession(ctx, a.SessionID, a.Title)
	},
	"ArchiveSession": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return svc.ArchiveSession(ctx, a.SessionID)
	},
	"RestoreSession": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return svc.RestoreSession(ctx, a.SessionID)
	},
	"DeleteSession": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.DeleteSession(ctx, a.SessionID)
	},
	"SessionEvents": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string `json:"session_id"`
			AfterSeq  int64  `json:"after_seq"`
			BeforeSeq int64  `json:"before_seq"`
			Tail      bool   `json:"tail"`
			Limit     int    `json:"limit"`
		}](b)
		if err != nil {
			return nil, err
		}
		if a.Tail || a.BeforeSeq != 0 {
			return svc.SessionEventsBefore(ctx, a.SessionID, a.BeforeSeq, a.Limit)
		}
		return svc.SessionEvents(ctx, a.SessionID, a.AfterSeq, a.Limit)
	},
	"SendMessage": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string `json:"session_id"`
			Text      string `json:"text"`
		}](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.SendMessage(ctx, a.SessionID, a.Text)
	},
	"Retry": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.Retry(ctx, a.SessionID)
	},
	"Cancel": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.Cancel(ctx, a.SessionID)
	},
	"PendingApprovals": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return svc.PendingApprovals(ctx, a.SessionID)
	},
	"Answer": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[runtime.AnswerArgs](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.Answer(ctx, a)
	},
	"SetApprovalPolicy": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string                `json:"session_id"`
			Approval  policy.ApprovalPolicy `json:"approval"`
		}](b)
		if err != nil {
			return nil, err
		}
		return svc.SetApprovalPolicy(ctx, a.SessionID, a.Approval)
	},
	"SetSandboxPolicy": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string          `json:"session_id"`
			Sandbox   runtime.Sandbox `json:"sandbox"`
		}](b)
		if err != nil {
			return nil, err
		}
		return svc.SetSandboxPolicy(ctx, a.SessionID, a.Sandbox)
	},
	"SetPlanning": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string `json:"session_id"`
			Planning  bool   `json:"planning"`
		}](b)
		if err != nil {
			return nil, err
		}
		return svc.SetPlanning(ctx, a.SessionID, a.Planning)
	},
	"ListGrants": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return svc.ListGrants(ctx, a.SessionID)
	},
	"RevokeGrant": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[runtime.RevokeGrantArgs](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.RevokeGrant(ctx, a)
	},
	"TrustMcpServer": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[runtime.TrustMcpArgs](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.TrustMcpServer(ctx, a)
	},
	"McpPending": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return svc.McpPending(ctx, a.SessionID)
	},
	"AuditLog": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string   `json:"session_id"`
			Kinds     []string `json:"kinds"`
			Limit     int      `json:"limit"`
			BeforeSeq int64    `json:"before_seq"`
		}](b)
		if err != nil {
			return nil, err
		}
		return svc.AuditLog(ctx, a.SessionID, a.Kinds, a.Limit, a.BeforeSeq)
	},
	"ExportAudit": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string `json:"session_id"`
			Format    string `json:"format"`
		}](b)
		if err != nil {
			return nil, err
		}
		return svc.ExportAudit(ctx, a.SessionID, a.Format)
	},
	"KillAgent": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[struct {
			SessionID string `json:"session_id"`
			AgentID   string `json:"agent_id"`
		}](b)
		if err != nil {
			return nil, err
		}
		return nil, svc.KillAgent(ctx, a.SessionID, a.AgentID)
	},
	"UndoCall": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[runtime.UndoCallArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.UndoCall(ctx, a)
	},
	"RestoreTo": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[runtime.RestoreToArgs](b)
		if err != nil {
			return nil, err
		}
		return svc.RestoreTo(ctx, a)
	},
	"ChangeSets": func(ctx context.Context, svc *runtime.Service, b []byte) (any, error) {
		a, err := args[sessionArg](b)
		if err != nil {
			return nil, err
		}
		return svc.ChangeSets(ctx, a.SessionID)
	},
	"FrontendReady": func(ctx context.Context, svc *runtime.Service, _ []byte) (any, error) {
		return nil, svc.FrontendReady(ctx)
	},
}

// Methods lists the API's method names.
func Methods() []string {
	out := make([]string, 0, len(methods)+len(settingsMethods))
	for k := range methods {
		out = append(out, k)
	}
	for k := range settingsMethods {
		out = append(out, k)
	}
	return out
}

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	h, ok := methods[r.PathValue("method")]
	if !ok {
		h, ok = s.settingsHandlerFor(r.PathValue("method"))
	}
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown method %q", r.PathValue("method")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "request body too large")
		return
	}
	out, err := h(r.Context(), s.opts.Service, body)
	if err != nil {
		writeError(w, status(err), err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if out == nil {
		_, _ = w.Write([]byte("null"))
		return
	}
	_ = json.NewEncoder(w).Encode(out)
}

func status(err error) int {
	var br *badRequest
	switch {
	case errors.As(err, &br):
		return http.StatusBadRequest
	case errors.Is(err, store.ErrNotFound), errors.Is(err, settings.ErrUnknownServer):
		return http.StatusNotFound
	case errors.Is(err, runtime.ErrUnknownRequest), errors.Is(err, runtime.ErrBusy):
		return http.StatusConflict
	case errors.Is(err, runtime.ErrNoModel):
		return http.StatusPreconditionFailed
	case errors.Is(err, errNoSettings):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
