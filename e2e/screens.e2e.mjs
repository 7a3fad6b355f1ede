// Screens: every window state issue 20 changed, shot in the light and dark
// themes at 900×600 and 1920×1080 into artifacts/screens/ (never committed),
// against a real `warden serve` with a script model in headless Chromium.
// Each shot is also checked: the page must not scroll sideways, and no text
// may be cut off by a box that hides its overflow (a deliberate ellipsis must
// carry the whole text in a title). Run with `make e2e` (part of make test).
import assert from 'node:assert/strict'
import { serve, launch } from './serve.mjs'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const out = join(root, 'artifacts', 'screens')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const tmp = mkdtempSync(join(tmpdir(), 'warden-screens-'))
const workspace = join(tmp, 'ws')
for (const d of ['build', 'dist', 'src']) mkdirSync(join(workspace, d), { recursive: true })
writeFileSync(join(workspace, 'README.md'), '# screens workspace\n')

// One slow turn (the working line is on screen while it streams), then no
// more turns: the next message ends in a model error, which offers Retry.
const words = 'The working line shows what the model is doing and for how long, with Stop beside the composer. '
const script = join(tmp, 'screens.json')
writeFileSync(script, JSON.stringify({ version: 1, name: 'screens', delta_delay_ms: 40, turns: [{ text: words.repeat(12) }] }))

const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--db', join(tmp, 'warden.db'), '--static', join(root, 'frontend', 'dist'),
  '--model', `script:${script}`], { ...process.env, XDG_DATA_HOME: join(tmp, 'data'), XDG_CONFIG_HOME: join(tmp, 'config') })
const { ctx, userData } = await launch(chromium, { width: 1920, height: 1080 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))

const themes = ['light', 'dark']
const sizes = [[900, 600], [1920, 1080]]
const problems = []
let shots = 0

// layoutProblems runs in the page: sideways scrolling, and text cut off by a
// box that hides its overflow. Boxes under 2 px are screen-reader-only text.
const layoutProblems = () => {
  const found = []
  const de = document.documentElement
  if (de.scrollWidth > window.innerWidth + 1) found.push(`the page scrolls sideways (${de.scrollWidth} px wide in ${window.innerWidth})`)
  const name = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : ''}${el.dataset.testid ? `[${el.dataset.testid}]` : ''}`
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect()
    if (r.width < 2 || r.height < 2) continue
    const cs = getComputedStyle(el)
    if (cs.visibility === 'hidden') continue
    const hides = (v) => v === 'hidden' || v === 'clip'
    const text = (el.innerText ?? '').trim()
    if (!text) continue
    const wide = hides(cs.overflowX) && el.scrollWidth > el.clientWidth + 1
    const tall = hides(cs.overflowY) && el.scrollHeight > el.clientHeight + 1
    if (!wide && !tall) continue
    // An ellipsis is a deliberate cut when the whole text is one hover away.
    if (wide && !tall && cs.textOverflow === 'ellipsis' && (el.title || el.closest('[title]'))) continue
    found.push(`text cut off in ${name(el)} (${wide ? `${el.scrollWidth} px in ${el.clientWidth}` : `${el.scrollHeight} px in ${el.clientHeight} high`}): "${text.slice(0, 60)}"`)
  }
  // A visible dialog, alert or panel must lie within the viewport.
  for (const el of document.querySelectorAll('[role="dialog"], [role="alertdialog"], [role="alert"], [role="group"][aria-label="Writable roots"]')) {
    const r = el.getBoundingClientRect()
    if (r.width < 2) continue
    if (r.left < -1 || r.right > window.innerWidth + 1) found.push(`${name(el)} sticks out of the window sideways (${Math.round(r.left)}–${Math.round(r.right)} of ${window.innerWidth})`)
  }
  return found
}

// shoot takes one state in both themes at both sizes, then puts the page
// back to light at 1920×1080. ready (optional) waits after each change.
async function shoot(state, ready) {
  for (const theme of themes) {
    await page.emulateMedia({ colorScheme: theme })
    for (const [width, height] of sizes) {
      await page.setViewportSize({ width, height })
      if (ready) await ready()
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
      const file = `${state}-${theme}-${width}x${height}.png`
      await page.screenshot({ path: join(out, file) })
      shots++
      for (const p of await page.evaluate(layoutProblems)) problems.push(`${file}: ${p}`)
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1920, height: 1080 })
  console.log(`ok  ${state}`)
}

const composer = page.getByRole('textbox', { name: 'Message' })
const prompt = page.getByRole('dialog', { name: 'Permission request' })
const confirm = page.getByRole('alertdialog', { name: 'Confirm' })
const idle = async () => {
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: 30000 })
  await page.locator('[data-testid="tool-item"].running').first().waitFor({ state: 'detached', timeout: 30000 })
}
async function send(text) {
  await idle()
  await composer.fill(text)
  await composer.press('Enter')
}
const armed = () => page.locator('[data-testid="permission-prompt"][data-armed="true"]').waitFor({ timeout: 5000 })
// api calls the backend as the page does (its session cookie signs it in).
const api = (method, body) =>
  page.evaluate(async ([m, b]) => {
    const r = await fetch(`/api/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) })
    if (!r.ok) throw new Error(`${m}: HTTP ${r.status} ${await r.text()}`)
    return r.json().catch(() => null)
  }, [method, body])

const t0 = Date.now()
try {
  await page.goto(server.url)
  await page.getByText('No sessions yet').waitFor()

  // A wrong workspace is said next to the field; the form keeps the text.
  await page.getByRole('button', { name: 'New session' }).click()
  await page.getByLabel('Workspace folder').fill(join(tmp, 'no-such-folder'))
  await page.getByLabel('Title (optional)').fill('Screens')
  await page.getByRole('button', { name: 'Create' }).click()
  await page.getByTestId('workspace-error').waitFor()
  assert.equal(await page.getByLabel('Title (optional)').inputValue(), 'Screens', 'the form keeps what was typed')
  await shoot('workspace-error')
  await page.getByLabel('Workspace folder').fill(workspace)
  await page.getByRole('button', { name: 'Create' }).click()
  await page.getByRole('heading', { name: 'Screens' }).waitFor()

  // The sandbox denies a network command; the remedy says what it changes.
  await send('!curl -sS https://example.com')
  const remedy = page.getByRole('button', { name: 'Turn network on for this session' })
  await remedy.waitFor({ timeout: 20000 })
  await shoot('remedy')
  await remedy.click()
  await page.getByRole('button', { name: 'Network is on for this session now' }).waitFor()
  await shoot('remedy-applied')
  await page.getByLabel('Network access').uncheck()

  // A command with bidi controls: badges, a warning, never reversed.
  await send('!rm -rf "notes\u202Etxt.exe" \u2066build\u2069')
  await prompt.waitFor()
  await prompt.getByTestId('invisible-warning').waitFor()
  await shoot('prompt-bidi')
  await armed()
  await page.keyboard.press('n')
  await prompt.waitFor({ state: 'hidden' })

  // A long command folds to its head, its tail and the risky line.
  const lines = Array.from({ length: 40 }, (_, i) => (i === 21 ? 'rm -rf build' : `echo "step ${i + 1} of the long script"`))
  await send('!' + lines.join('\n'))
  await prompt.waitFor()
  await prompt.getByTestId('show-all').waitFor()
  assert.match(await prompt.getByTestId('show-all').innerText(), /Show all 40 lines/)
  await shoot('prompt-long')
  await prompt.getByTestId('show-all').click()
  await shoot('prompt-long-expanded')
  await armed()
  await page.keyboard.press('n')
  await prompt.waitFor({ state: 'hidden' })

  // Always in words, for the session scope.
  await send('!rm -rf build')
  await prompt.waitFor()
  await prompt.getByLabel('This session').check()
  await prompt.getByTestId('signature-words').waitFor()
  await shoot('prompt-always-words')

  // Two sessions asking: while this ask is open, another session asks; once
  // this one is answered the prompt shows the other's and says so.
  const other = await api('CreateSession', { workspace, title: 'Other session' })
  await api('SendMessage', { session_id: other.id, text: '!rm -rf dist' })
  await page.getByTestId('queue-count').waitFor({ timeout: 20000 }).catch(() => {})
  await shoot('two-sessions-queued')
  await prompt.getByRole('button', { name: 'Deny' }).click()
  await page.getByTestId('other-session').waitFor({ timeout: 20000 })
  await shoot('two-sessions-other')
  await prompt.getByRole('button', { name: 'Deny' }).click()
  await prompt.waitFor({ state: 'hidden' })
  await page.getByRole('button', { name: /^Screens/ }).first().click().catch(() => {})
  await page.getByRole('heading', { name: 'Screens' }).waitFor()

  // Never ask with Full access is confirmed like Full access.
  // The sandbox's confirmation reads the session's approval once the backend
  // has stored it: wait for that (the selector's description follows it).
  const approvalSel = page.getByLabel('Approval policy')
  const before = await approvalSel.getAttribute('aria-description')
  await approvalSel.selectOption('never')
  await page.waitForFunction(
    (b) => document.querySelector('select[aria-label="Approval policy"]')?.getAttribute('aria-description') !== b,
    before,
    { timeout: 10000 },
  )
  await page.getByLabel('Sandbox', { exact: true }).selectOption('danger-full-access')
  await confirm.waitFor()
  assert.match(await confirm.innerText(), /without asking you/)
  await shoot('never-full-access')
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await page.getByLabel('Approval policy').selectOption('on-request')

  // The writable-roots panel is not clipped by the status bar.
  const rootsButton = page.getByRole('button', { name: /^Writable roots/ })
  const roots = page.getByRole('group', { name: 'Writable roots' })
  await shoot('writable-roots', async () => {
    if (!(await roots.isVisible())) await rootsButton.click()
    await roots.waitFor()
  })
  await rootsButton.click()
  await roots.waitFor({ state: 'hidden' })

  // Delete asks and archives.
  await page.getByRole('button', { name: 'Delete Screens' }).click()
  await confirm.waitFor()
  assert.match(await confirm.innerText(), /audit trail are kept/)
  await shoot('archive-confirm')
  await confirm.getByRole('button', { name: 'Cancel' }).click()

  // The working line while the model streams; then a model error with Retry.
  await send('tell me what you do')
  await page.getByTestId('working').waitFor({ timeout: 20000 })
  await shoot('working')
  await idle()
  await send('and then?')
  await page.getByTestId('model-error').waitFor({ timeout: 30000 })
  await page.getByTestId('retry-turn').waitFor()
  await shoot('model-error')

  // Settings: the model card shows the running model; selector descriptions.
  await page.getByRole('tab', { name: 'Settings' }).click()
  await page.getByTestId('active-model').waitFor()
  await shoot('settings-model')
  await shoot('settings-defaults', () => page.getByTestId('def-approval-desc').scrollIntoViewIfNeeded())
  await page.getByRole('tab', { name: 'Chat' }).click()

  // The backend goes away: red status bar, sending disabled, the text kept.
  await composer.fill('a message typed before the backend went away')
  server.proc.kill('SIGTERM')
  await page.getByTestId('offline').waitFor({ timeout: 15000 })
  assert.equal(await composer.inputValue(), 'a message typed before the backend went away', 'the typed message is kept')
  await shoot('backend-lost')

  assert.deepEqual(errors, [], 'no page errors')
  assert.deepEqual(problems, [], `layout problems:\n${problems.join('\n')}`)
  console.log(`screens: ${shots} shots of every state in ${out} (${((Date.now() - t0) / 1000).toFixed(1)} s), no sideways scroll, no clipped text`)
} catch (e) {
  await page.screenshot({ path: join(out, 'failure.png') }).catch(() => {})
  console.error('warden serve log:\n' + server.log())
  throw e
} finally {
  await ctx.close()
  server.proc.kill('SIGTERM')
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
