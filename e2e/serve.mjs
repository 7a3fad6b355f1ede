// What every e2e run shares: `warden serve` started on a free port (its URL
// read from stdout) and Debian's Chromium launched headless with the flags a
// closed network needs (see shared/design/architecture.md).
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// serve starts `bin args…` and resolves with the process and the tokened URL
// it prints, or rejects with its log if it exits or prints none in 20 s.
export function serve(bin, args, env) {
  const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env })
  let log = ''
  p.stderr.on('data', (b) => (log += b))
  return new Promise((res, rej) => {
    let buf = ''
    const t = setTimeout(() => rej(new Error(`warden serve printed no URL in 20s:\n${log}`)), 20000)
    p.stdout.on('data', (b) => {
      buf += b
      const m = /http:\/\/\S+token=\S+/.exec(buf)
      if (m) {
        clearTimeout(t)
        res({ proc: p, url: m[0], log: () => log })
      }
    })
    p.on('exit', (c) => rej(new Error(`warden serve exited ${c}:\n${log}`)))
  })
}

// launch opens a persistent Chromium context on a fresh profile; the caller
// removes userData when done. extraArgs add Chromium flags.
export async function launch(chromium, viewport, extraArgs = []) {
  const userData = mkdtempSync(join(tmpdir(), 'warden-e2e-chromium-'))
  const ctx = await chromium.launchPersistentContext(userData, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...extraArgs],
    viewport,
    colorScheme: 'light',
  })
  return { ctx, userData }
}
