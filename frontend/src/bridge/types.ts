// The Go API as the UI sees it. Every type a method takes or returns, and the
// method table itself, are generated from the one API definition
// (backend/api) into api.gen.ts by scripts/apigen (`make bindings`; `make
// check-bindings` fails when it is stale). This file adds what is not a
// method: the push stream and the Bridge. Every backend call in the frontend
// goes through a Bridge; components and stores never touch window.go or
// fetch directly.
import type { Approval, GrantScope, Methods, Session, WardenEvent } from './api.gen'

export type * from './api.gen'

// The scope of an MCP server trust given from the window.
export type McpTrustScope = GrantScope

// What the runtime pushes (runtime.Push, one shape per type).
export type Push =
  | { type: 'event'; event: WardenEvent }
  | { type: 'delta'; session_id: string; text: string }
  | { type: 'session'; session: Session }
  | { type: 'session-deleted'; session_id: string }
  | { type: 'approval'; approval: Approval }
  | { type: 'approval-resolved'; request_id: string }

export type Method = keyof Methods

// Which transport carries the calls. 'none' means no backend is reachable.
export type Transport = 'wails' | 'http' | 'none'

// What the transport can do beyond the method table. dialogs: the native
// save dialog and folder picker (SaveAuditExport, PickFolder) exist; only
// the desktop window has them, a browser page downloads and types paths.
export interface NativeCapabilities {
  readonly dialogs: boolean
}

export interface Bridge {
  readonly transport: Transport
  readonly native: NativeCapabilities
  call<M extends Method>(method: M, args?: Methods[M][0]): Promise<Methods[M][1]>
  // Subscribes to pushed events; returns the unsubscribe function.
  subscribe(fn: (p: Push) => void): () => void
}
