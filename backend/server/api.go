package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/warden-dev/warden/backend/api"
	"github.com/warden-dev/warden/backend/gate"
	"github.com/warden-dev/warden/backend/runtime"
	"github.com/warden-dev/warden/backend/settings"
	"github.com/warden-dev/warden/backend/store"
)

// maxBody bounds a request body; API arguments are small.
const maxBody = 1 << 20

// methods is the HTTP method table, read from the one API definition.
var methods = func() map[string]*api.Method {
	out := map[string]*api.Method{}
	for _, m := range api.On(api.HTTP) {
		out[m.Name] = m
	}
	return out
}()

// Methods lists the names the server answers, in the definition's order.
func Methods() []string {
	var out []string
	for _, m := range api.On(api.HTTP) {
		out = append(out, m.Name)
	}
	return out
}

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	m, ok := methods[r.PathValue("method")]
	if !ok {
		msg := fmt.Sprintf("unknown method %q", r.PathValue("method"))
		if windowOnly(r.PathValue("method")) {
			msg = fmt.Sprintf("%s is the desktop window's only (a native dialog or probe); a browser page has none", r.PathValue("method"))
		}
		writeError(w, http.StatusNotFound, msg)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "request body too large")
		return
	}
	out, err := m.Invoke(api.WithFrontEnd(r.Context(), gate.ViaServe), api.Services{Runtime: s.opts.Service, Settings: s.opts.Settings}, body)
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
	var br *api.BadRequestError
	switch {
	case errors.As(err, &br):
		return http.StatusBadRequest
	case errors.Is(err, store.ErrNotFound), errors.Is(err, settings.ErrUnknownServer):
		return http.StatusNotFound
	case errors.Is(err, runtime.ErrUnknownRequest), errors.Is(err, runtime.ErrBusy):
		return http.StatusConflict
	case errors.Is(err, runtime.ErrNoModel):
		return http.StatusPreconditionFailed
	case errors.Is(err, api.ErrNoSettings), errors.Is(err, api.ErrNotConnected):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func windowOnly(name string) bool {
	for _, m := range api.On(api.Window) {
		if m.Name == name {
			return true
		}
	}
	return false
}
