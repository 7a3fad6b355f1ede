// What every e2e run shares: `warden serve` started on a free port (its URL
// read from stdout) and Debian's Chromium launched headless with the flags a
// closed network needs (see shared/design/architecture.md).
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// serve starts `bin args…` and resolves with the process and the URL it
// prints (with its one-time sign-in ?code=), or rejects with its log if it
// exits or prints none in 20 s. opts.cwd is the folder it is started in
// (where a new session's folder field starts).
export function serve(bin, args, env, opts = {}) {
  const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: opts.cwd })
  let log = ''
  p.stderr.on('data', (b) => (log += b))
  return new Promise((res, rej) => {
    let buf = ''
    const t = setTimeout(() => rej(new Error(`warden serve printed no URL in 20s:\n${log}`)), 20000)
    p.stdout.on('data', (b) => {
      buf += b
      const m = /http:\/\/\S+[?&]code=\S+/.exec(buf)
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

// signIn trades the printed URL's one-time code for the session cookie, as
// the page does, for a script that calls the API from Node. The code is
// dead afterwards: a browser context then needs the cookie (addTo) and
// opens `base`, not the printed URL.
export async function signIn(url) {
  const u = new URL(url)
  const r = await fetch(`${u.origin}/api/auth`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code: u.searchParams.get('code') }),
  })
  if (r.status !== 204) throw new Error(`sign-in at ${u.origin}: HTTP ${r.status} ${await r.text()}`)
  const [pair] = (r.headers.get('set-cookie') ?? '').split(';')
  const eq = pair.indexOf('=')
  if (eq < 1) throw new Error(`sign-in at ${u.origin} set no cookie`)
  const name = pair.slice(0, eq)
  const value = pair.slice(eq + 1)
  return {
    base: u.origin,
    cookie: pair,
    addTo: (ctx) => ctx.addCookies([{ name, value, url: u.origin, httpOnly: true, sameSite: 'Strict' }]),
  }
}
