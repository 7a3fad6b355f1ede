// The Go API as the UI sees it. Every backend call in the frontend goes
// through a Bridge; components and stores never import generated bindings.

export interface AppInfo {
  name: string
  version: string
}

export interface SandboxStatus {
  available: boolean
  mechanism: string
  version: string
  detail: string
}

// Which transport carries the calls. 'none' means the page runs outside the
// desktop app (e.g. `vite preview`) with no backend to reach.
export type Transport = 'wails' | 'none'

export interface Bridge {
  readonly transport: Transport
  info(): Promise<AppInfo>
  sandboxStatus(): Promise<SandboxStatus>
  // Tells the backend the shell has mounted and rendered its first data.
  frontendReady(): Promise<void>
}
