// Package api is the one definition of the API every front end speaks: each
// method's name, its request and response types, which transports carry it
// and how it reaches runtime.Service or settings.Service. Everything else is
// produced from this list: backend/server serves it over HTTP by reading it at
// start, and scripts/apigen writes the desktop window's Wails methods
// (app/api_gen.go) and the frontend bridge's TypeScript
// (frontend/src/bridge/api.gen.ts) from it, which `make check-bindings` keeps
// current.
//
// It owns the request structs of methods whose runtime counterparts take
// plain arguments, and the errors a transport reports when the service a
// method needs is not there.
package api
