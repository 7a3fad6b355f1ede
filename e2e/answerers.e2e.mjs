// End to end: Settings → "Answerers and hooks" in Chromium against a real
// `warden serve` (issue 35). The user's config names a command answerer,
// a reviewer model and an after-call hook; the workspace brings its own
// answerer and a pre-call hook, which stay untrusted until the Trust button
// (with its confirmation) is clicked. The trust is checked in the backend's
// answer (the state the page shows after a reload). Screenshots go to
// artifacts/e2e/answerers-*.png. Then an ask (the demo's `!rm -rf build`)
// is answered from another device: the prompt's "Answer from another
// device…" makes a link, a second browser opens it and allows once, and the
// command runs (the folder is gone).
//
// Needs bin/warden and frontend/dist: `make cli frontend && node e2e/answerers.e2e.mjs`.
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
// Not under /tmp: the programs run in the cage, whose /tmp is private.
const base = process.env.WARDEN_E2E_TMP ?? join(root, 'artifacts', 'tmp')
mkdirSync(base, { recursive: true })
const tmp = mkdtempSync(join(base, 'answerers-'))
const workspace = join(tmp, 'shop')
const configHome = join(tmp, 'config')
mkdirSync(join(workspace, '.warden'), { recursive: true })
mkdirSync(join(workspace, 'scripts'), { recursive: true })
mkdirSync(join(workspace, 'build'), { recursive: true })
writeFileSync(join(workspace, 'build', 'out.o'), 'x')
mkdirSync(join(configHome, 'warden'), { recursive: true })
const corp = join(tmp, 'corp-check.sh')
function program(path, text) {
  writeFileSync(path, text)
  chmodSync(path, 0o755)
}
program(corp, '#!/bin/sh\n# Allows reads, passes the rest.\ngrep -q \'"tool":"fs.read"\' && echo \'{"answer":"allow","reason":"a read"}\' || echo \'{"answer":"pass"}\'\n')
program(join(tmp, 'audit-log.sh'), '#!/bin/sh\ncat >/dev/null\necho \'{"answer":"pass"}\'\n')
program(join(workspace, 'scripts', 'guard.sh'), '#!/bin/sh\n# The repository\'s own reviewer: no curl, no wget.\ngrep -Eq \'curl|wget\' && echo \'{"answer":"deny","reason":"no downloads here"}\' || echo \'{"answer":"pass"}\'\n')
program(join(workspace, 'scripts', 'no-push.sh'), '#!/bin/sh\ngrep -q \'git push\' && echo \'{"answer":"ask","reason":"a push leaves this machine"}\' || echo \'{"answer":"allow"}\'\n')
writeFileSync(
  join(configHome, 'warden', 'config.toml'),
  `[[answerers]]
kind = "command"
name = "corp-check"
command = ["${corp}", "--strict"]
timeout = "5s"

[[answerers]]
kind = "model"
name = "reviewer"
model = "anthropic:claude-haiku-4-5"
budget = 200

[[hooks]]
name = "audit-log"
when = "after"
command = ["${join(tmp, 'audit-log.sh')}"]
`,
)
writeFileSync(
  join(workspace, '.warden', 'config.toml'),
  `[[answerers]]
kind = "command"
name = "lint-guard"
command = ["./scripts/guard.sh"]

[[hooks]]
name = "no-push"
when = "before"
command = ["./scripts/no-push.sh"]
tools = ["shell.exec"]
`,
)

const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
const env = { ...process.env, XDG_DATA_HOME: join(tmp, 'data'), XDG_STATE_HOME: join(tmp, 'state'), XDG_CONFIG_HOME: configHome }
delete env.OPENAI_API_KEY
delete env.ANTHROPIC_API_KEY
const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--db', join(tmp, 'warden.db'), '--static', join(root, 'frontend', 'dist')], env, { cwd: workspace })
const { ctx, userData } = await launch(chromium, { width: 1280, height: 2300 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
const panel = page.getByTestId('answerers-panel')
const entry = (name) => panel.locator(`[data-testid="answerer-entry"][data-name="${name}"]`)

try {
  await page.goto(server.url)
  await page.getByText('No sessions yet').waitFor()
  // A session in the workspace, made through the API the page itself uses.
  const made = await page.evaluate(async (ws) => {
    const r = await fetch('/api/CreateSession', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workspace: ws, title: 'Tidy the cart' }) })
    return { status: r.status, body: await r.text() }
  }, workspace)
  assert.equal(made.status, 200, made.body)
  await page.reload()
  await page.getByRole('tab', { name: 'Settings' }).click()
  await entry('lint-guard').waitFor()

  const state = async (name) => (await entry(name).getByTestId('answerer-state').innerText()).trim()
  assert.equal(await state('corp-check'), 'Active')
  assert.equal(await state('lint-guard'), 'Not trusted yet — does not run')
  assert.equal(await state('no-push'), 'Not trusted yet — does not run')
  assert.match(await panel.getByTestId('answerers-order').innerText(), /corp-check → .*you$/)
  await entry('lint-guard').getByText('Read the program').click()
  await panel.scrollIntoViewIfNeeded()
  await panel.screenshot({ path: join(out, 'answerers-settings.png') })
  console.log(`ok  the section lists every entry; screenshot ${join(out, 'answerers-settings.png')}`)

  await entry('lint-guard').getByTestId('answerer-trust').click()
  const dlg = page.getByRole('alertdialog', { name: 'Confirm' })
  await dlg.waitFor()
  const q = await dlg.innerText()
  assert.ok(q.includes('`./scripts/guard.sh`') && q.includes('read-only sandbox with no network'), q)
  await page.screenshot({ path: join(out, 'answerers-trust-confirm.png') })
  await dlg.getByRole('button', { name: 'Trust and run it' }).click()
  await entry('lint-guard').getByTestId('answerer-untrust').waitFor()
  await page.reload()
  await page.getByRole('tab', { name: 'Settings' }).click()
  await entry('lint-guard').waitFor()
  assert.equal(await state('lint-guard'), 'Active')
  assert.equal(await state('no-push'), 'Not trusted yet — does not run')
  assert.match(await panel.getByTestId('answerers-order').innerText(), /corp-check → .*lint-guard → you$/)
  console.log('ok  Trust asks first, and the trust holds after a reload')

  await page.getByRole('tab', { name: 'Chat' }).click()
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill('!rm -rf build')
  await composer.press('Enter')
  const prompt = page.getByRole('dialog', { name: 'Permission request' })
  await prompt.waitFor({ timeout: 60000 })
  await prompt.getByRole('button', { name: 'Answer from another device…' }).click()
  const pop = prompt.getByRole('group', { name: 'Answer from another device' })
  const url = (await pop.getByTestId('remote-url').innerText()).trim()
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\//)
  await pop.getByTestId('remote-qr').waitFor()
  assert.match(await pop.getByTestId('remote-loopback').innerText(), /only this computer can open/)
  await page.screenshot({ path: join(out, 'answerers-remote-popover.png') })
  // The other device: its own browser profile, no cookie of the window's.
  const other = await launch(chromium, { width: 420, height: 900 })
  try {
    const phone = other.ctx.pages()[0] ?? (await other.ctx.newPage())
    await phone.goto(url)
    await phone.getByTestId('allow-once').click()
    await phone.getByTestId('remote-done').waitFor({ timeout: 15000 }).catch(async (e) => {
      await phone.screenshot({ path: join(out, 'answerers-remote-page-failed.png') })
      throw new Error(`the other device's page after Allow once: ${await phone.locator('body').innerText()}`, { cause: e })
    })
    await phone.screenshot({ path: join(out, 'answerers-remote-page.png') })
  } finally {
    await other.ctx.close()
    rmSync(other.userData, { recursive: true, force: true })
  }
  await prompt.waitFor({ state: 'hidden', timeout: 30000 })
  for (let i = 0; i < 100 && existsSync(join(workspace, 'build')); i++) await page.waitForTimeout(100)
  assert.ok(!existsSync(join(workspace, 'build')), 'the command allowed from the other device ran')
  console.log('ok  a link from the prompt answers the ask from a second browser')
  assert.deepEqual(errors, [])
} finally {
  await ctx.close()
  server.proc.kill()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
