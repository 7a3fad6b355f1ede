import { vi } from 'vitest'
import type { AppInfo, Bridge, SandboxStatus, Transport } from '../bridge'

// A Bridge whose answers a test chooses; the calls are vi.fn spies.
export function fakeBridge(opts: {
  transport?: Transport
  info?: AppInfo | Error
  sandbox?: SandboxStatus | Error
}) {
  const answer = <T>(v: T | Error | undefined, fallback: T) =>
    v instanceof Error ? Promise.reject(v) : Promise.resolve(v ?? fallback)
  return {
    transport: opts.transport ?? 'wails',
    info: vi.fn(() => answer(opts.info, { name: 'Warden', version: '1.0.0' })),
    sandboxStatus: vi.fn(() =>
      answer(opts.sandbox, { available: true, mechanism: 'bubblewrap', version: 'bubblewrap 0.8.0', detail: 'ok' }),
    ),
    frontendReady: vi.fn(() => Promise.resolve()),
  } satisfies Bridge
}
