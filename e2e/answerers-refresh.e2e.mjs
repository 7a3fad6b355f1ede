// End to end: Settings → "Answerers and hooks" follows the session's
// answers while it is open (issue 36). A real `warden serve` with a command
// answerer that refuses deleting a tree; the section is open, a
// `!rm -rf build` asks, the answerer denies it from its cage, and the
// answer shows under "Last answers" without reopening or reloading the
// page. Screenshots go to
// artifacts/e2e/answerers-refresh-{before,after}.png.
//
// Needs bin/warden and frontend/dist: `make cli frontend && node e2e/answerers-refresh.e2e.mjs`.
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launch, serve } from './serve.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
// Not under /tmp: the answerer runs in the cage, whose /tmp is private.
const base = process.env.WARDEN_E2E_TMP ?? join(root, 'artifacts', 'tmp')
mkdirSync(base, { recursive: true })
const tmp = mkdtempSync(join(base, 'answerers-refresh-'))
const workspace = join(tmp, 'shop')
const configHome = join(tmp, 'config')
mkdirSync(join(workspace, 'build'), { recursive: true })
mkdirSync(join(configHome, 'warden'), { recursive: true })
const corp = join(tmp, 'corp-check.sh')
writeFileSync(corp, '#!/bin/sh\ngrep -q \'rm -rf\' && echo \'{"answer":"deny","reason":"deleting a tree needs the owner"}\' || echo \'{"answer":"pass"}\'\n')
chmodSync(corp, 0o755)
writeFileSync(
  join(configHome, 'warden', 'config.toml'),
  `[[answerers]]
kind = "command"
name = "corp-check"
command = ["${corp}"]
timeout = "20s"
`,
)

const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
const env = { ...process.env, XDG_DATA_HOME: join(tmp, 'data'), XDG_STATE_HOME: join(tmp, 'state'), XDG_CONFIG_HOME: configHome }
delete env.OPENAI_API_KEY
delete env.ANTHROPIC_API_KEY
const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--db', join(tmp, 'warden.db'), '--static', join(root, 'frontend', 'dist')], env, { cwd: workspace })
const { ctx, userData } = await launch(chromium, { width: 1280, height: 1400 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
const panel = page.getByTestId('answerers-panel')
const api = (method, body) =>
  page.evaluate(
    async ([m, b]) => {
      const r = await fetch(`/api/${m}`, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) })
      return { status: r.status, body: await r.text() }
    },
    [method, body],
  )

try {
  await page.goto(server.url)
  await page.getByText('No sessions yet').waitFor()
  const made = await api('CreateSession', { workspace, title: 'Tidy the cart' })
  assert.equal(made.status, 200, made.body)
  const sessionId = JSON.parse(made.body).id
  await page.reload()
  await page.getByRole('tab', { name: 'Settings' }).click()
  await panel.locator('[data-testid="answerer-entry"][data-name="corp-check"]').waitFor()
  assert.equal(await panel.getByTestId('answerers-last').count(), 0, 'no answers yet')
  await panel.scrollIntoViewIfNeeded()
  await panel.screenshot({ path: join(out, 'answerers-refresh-before.png') })

  // The section stays open; the ask comes from the session (as another
  // window or the TUI would send it) and the answerer answers it.
  const sent = await api('SendMessage', { session_id: sessionId, text: '!rm -rf build' })
  assert.equal(sent.status, 200, sent.body)
  const last = panel.getByTestId('answerers-last')
  await last.waitFor({ timeout: 60000 }).catch(async (e) => {
    await page.screenshot({ path: join(out, 'answerers-refresh-failed.png') })
    const now = await api('Answerers', { session_id: sessionId, last: 10 })
    const evs = await api('SessionEvents', { session_id: sessionId })
    throw new Error(`no answer in the open section; the backend's roster now: ${now.body}\nevents: ${evs.body.slice(0, 3000)}`, { cause: e })
  })
  const line = await last.innerText()
  assert.match(line, /command `corp-check` denied shell\.exec/)
  assert.match(line, /deleting a tree needs the owner/)
  assert.ok(existsSync(join(workspace, 'build')), 'the denied command did not run')
  await panel.scrollIntoViewIfNeeded()
  await panel.screenshot({ path: join(out, 'answerers-refresh-after.png') })
  console.log(`ok  the answer shows in the open section without a reload; screenshots ${join(out, 'answerers-refresh-{before,after}.png')}`)
  assert.deepEqual(errors, [])
} finally {
  await ctx.close()
  server.proc.kill()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
