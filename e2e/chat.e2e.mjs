// End to end: the built frontend in Chromium against a real `warden serve`
// with a script model. One conversation walks every decision the gate can
// make and every control that changes it; each state is a screenshot under
// artifacts/e2e/. Run with `make e2e` (builds bin/warden and frontend/dist).
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

const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
const tmp = mkdtempSync(join(tmpdir(), 'warden-e2e-'))
const workspace = join(tmp, 'ws')
for (const d of ['build', 'dist', 'src']) mkdirSync(join(workspace, d), { recursive: true })
writeFileSync(join(workspace, 'build', 'out.o'), 'x')
writeFileSync(join(workspace, 'dist', 'app.js'), 'x')
writeFileSync(join(workspace, 'README.md'), '# e2e workspace\n')

function startServer() {
  const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
  const args = ['serve', '--addr', '127.0.0.1:0', '--db', join(tmp, 'warden.db'), '--static', join(root, 'frontend', 'dist'),
    '--model', `script:${join(root, 'e2e', 'testdata', 'chat.json')}`]
  return serve(bin, args, { ...process.env, XDG_DATA_HOME: join(tmp, 'data'), XDG_CONFIG_HOME: join(tmp, 'config') })
}

// Timestamps for the push→visible figure: when a WebSocket frame carrying an
// approval arrives, and the first animation frame after the prompt is in the DOM.
const probe = () => {
  window.__arrive = []
  window.__shown = []
  const WS = window.WebSocket
  window.WebSocket = class extends WS {
    constructor(...a) {
      super(...a)
      this.addEventListener('message', (m) => {
        if (String(m.data).includes('"type":"approval"')) window.__arrive.push(performance.now())
      })
    }
  }
  let open = false
  new MutationObserver(() => {
    const d = document.querySelector('[role="dialog"][aria-label="Permission request"]')
    if (d && !open) {
      open = true
      requestAnimationFrame(() => setTimeout(() => window.__shown.push(performance.now()), 0))
    } else if (!d) open = false
  }).observe(document, { childList: true, subtree: true })
}

const server = await startServer()
const { ctx, userData } = await launch(chromium, { width: 1280, height: 800 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
// The Content-Security-Policy must not cost the app anything it does.
page.on('console', (m) => {
  if (/Content.Security.Policy/i.test(m.text())) errors.push(`CSP: ${m.text()}`)
})
await page.addInitScript(probe)

let shot = 0
const snap = async (name) => {
  shot++
  await page.screenshot({ path: join(out, `${String(shot).padStart(2, '0')}-${name}.png`) })
}
const composer = page.getByRole('textbox', { name: 'Message' })
const prompt = page.getByRole('dialog', { name: 'Permission request' })
const items = page.getByTestId('permission-item')
// A session runs one turn at a time: wait for the last one to end.
async function send(text) {
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: 20000 })
  await page.locator('[data-testid="tool-item"].running').first().waitFor({ state: 'detached', timeout: 20000 })
  mark = await items.count()
  await composer.fill(text)
  await composer.press('Enter')
}
// The newest inline decision matching re that arrived after the last send.
let mark = 0
async function lastItem(re) {
  const h = await page.waitForFunction(
    ([src, flags, from]) => {
      const re = new RegExp(src, flags)
      const all = [...document.querySelectorAll('[data-testid="permission-item"]')]
      for (let i = all.length - 1; i >= from; i--) if (re.test(all[i].textContent ?? '')) return i + 1
      return false
    },
    [re.source, re.flags, mark],
    { timeout: 30000 },
  )
  return items.nth((await h.jsonValue()) - 1)
}
// The prompt's keys arm after an input grace period (no key for 400 ms since
// it opened): wait for that before answering by key.
async function armed() {
  await page.locator('[data-testid="permission-prompt"][data-armed="true"]').waitFor({ timeout: 5000 })
}
const results = []
async function step(name, f) {
  const t0 = Date.now()
  await f()
  results.push(`${name} (${Date.now() - t0} ms)`)
  console.log(`ok  ${name}`)
}

try {
  const first = await page.goto(server.url)
  await page.getByText('No sessions yet').waitFor()

  await step('the printed URL signs in once and leaves the address bar', async () => {
    assert.ok(!page.url().includes('code='), `the code left the address bar: ${page.url()}`)
    const csp = first.headers()['content-security-policy'] ?? ''
    for (const d of ["script-src 'self'", "connect-src 'self'", "img-src 'self' data:"]) assert.ok(csp.includes(d), `CSP has ${d}: ${csp}`)
    assert.ok(!csp.includes('unsafe-inline'), `CSP allows no inline code: ${csp}`)
    const [c, ...more] = (await ctx.cookies()).filter((x) => x.name.startsWith('warden_session'))
    assert.ok(c && more.length === 0 && c.httpOnly && c.sameSite === 'Strict', `one HttpOnly, SameSite=Strict session cookie: ${JSON.stringify(c)}`)
    assert.equal(await page.evaluate(() => document.cookie), '', 'page scripts cannot read the session')
    // The URL as history or a terminal keeps it opens nothing any more.
    const u = new URL(server.url)
    const replay = await fetch(`${u.origin}/api/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code: u.searchParams.get('code') }) })
    assert.equal(replay.status, 401, 'a second exchange of the code is refused')
    assert.equal(replay.headers.get('set-cookie'), null)
    // The cookie carries a reload.
    await page.reload()
    await page.getByText('No sessions yet').waitFor()
  })

  await step('create a session with a workspace', async () => {
    await page.getByRole('button', { name: 'New session' }).click()
    await page.getByLabel('Workspace folder').fill(workspace)
    await page.getByLabel('Title (optional)').fill('e2e walkthrough')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByRole('heading', { name: 'e2e walkthrough' }).waitFor()
    await snap('new-session')
  })

  await step('allow: a read runs without asking; markdown renders', async () => {
    await send('hello')
    await page.getByText('Listed the workspace').waitFor({ timeout: 20000 })
    const it = await lastItem(/fs\.list/)
    assert.match(await it.innerText(), /allowed by sandbox and policy/)
    assert.equal(await page.locator('.md h4', { hasText: 'Looking around' }).count(), 1)
    assert.ok((await page.locator('pre.code .hl-comment').count()) >= 1, 'code block highlighted')
    await snap('allow')
  })

  await step('ask → once (key y), never stealing composer keys', async () => {
    await send('!rm -rf build')
    await prompt.waitFor()
    assert.match(await prompt.innerText(), /Always allow will cover: shell=rm -rf build/)
    assert.match(await prompt.innerText(), /Destructive/)
    // Modal: focus is in the prompt, and a y typed right away (type-ahead
    // from the composer) is swallowed, never an answer.
    assert.equal(await prompt.getAttribute('aria-modal'), 'true')
    assert.ok(await prompt.evaluate((d) => d.contains(document.activeElement)), 'focus is inside the prompt')
    await page.keyboard.press('y')
    assert.ok(await prompt.isVisible(), 'a key typed in the grace period does not answer')
    assert.equal(await composer.inputValue(), '', 'nor does it reach the composer')
    await snap('prompt')
    await armed()
    await page.keyboard.press('y')
    await prompt.waitFor({ state: 'hidden' })
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Message', null, { timeout: 5000 })
    const it = await lastItem(/allowed once by you/)
    assert.match(await it.innerText(), /shell\.exec/)
    await snap('ask-once')
  })

  await step('ask → always (this session); same signature then runs silently', async () => {
    mkdirSync(join(workspace, 'build'), { recursive: true })
    await send('!rm -rf build')
    await prompt.waitFor()
    await prompt.getByLabel('This session').check()
    await prompt.getByRole('button', { name: 'Always allow' }).click()
    await prompt.waitFor({ state: 'hidden' })
    await lastItem(/always allowed by you/)
    const before = await items.count()
    await send('!rm -rf build')
    const it = await lastItem(/allowed by session grant/)
    assert.match(await it.innerText(), /shell=rm -rf build/)
    assert.ok((await items.count()) > before)
    assert.equal(await prompt.count(), 0, 'no prompt for the granted signature')
    await snap('always-then-silent')
  })

  await step('a different signature asks; deny with a note', async () => {
    await send('!rm -rf dist')
    await prompt.waitFor()
    assert.match(await prompt.innerText(), /Always allow will cover: shell=rm -rf dist/)
    await prompt.getByRole('button', { name: 'Add a note…' }).click()
    await prompt.getByLabel('Note to the model (optional)').fill('keep dist, it is the release')
    await snap('deny-note')
    await prompt.getByRole('button', { name: 'Deny' }).click()
    await prompt.waitFor({ state: 'hidden' })
    await lastItem(/denied by you/)
    await snap('ask-deny')
  })

  await step('a command with bidi controls is shown with badges, not reversed', async () => {
    await send('!rm -rf "notes\u202Etxt.exe"')
    await prompt.waitFor()
    const text = await prompt.innerText()
    assert.ok(!text.includes('\u202E'), 'no raw U+202E in the prompt')
    assert.match(text, /⟨U\+202E⟩/)
    assert.match(await prompt.getByTestId('invisible-warning').innerText(), /invisible or control characters/)
    assert.match(await prompt.getByTestId('signature').innerText(), /⟨U\+202E⟩/)
    await snap('prompt-bidi')
    await armed()
    await page.keyboard.press('n')
    await prompt.waitFor({ state: 'hidden' })
    await lastItem(/denied by you/)
  })

  await step('sandbox denial and its one-click remedy', async () => {
    await send('!curl -sS https://example.com')
    const it = await lastItem(/denied by the sandbox/)
    await snap('sandbox-denied')
    await it.getByRole('button', { name: 'Turn network on for this session' }).click()
    await assert.doesNotReject(() =>
      page.waitForFunction(() => document.querySelector('input[aria-label="Network access"]')?.checked === true, null, { timeout: 5000 }),
    )
    // Applied: the button says so and is disabled; Retry is offered.
    const done = it.getByRole('button', { name: 'Network is on for this session now' })
    await done.waitFor()
    assert.ok(await done.isDisabled(), 'an applied remedy cannot be clicked again')
    await it.getByRole('button', { name: 'Retry the denied action' }).waitFor()
    await snap('remedy-applied')
    // Back to network off for the steps after this one.
    await page.getByLabel('Network access').uncheck()
  })

  await step('approval selector mid-session: Always asks even for a read-only command', async () => {
    await page.getByLabel('Approval policy').selectOption('always')
    await send('!ls')
    await prompt.waitFor()
    assert.match(await prompt.innerText(), /Approval policy "Always ask"/)
    await snap('approval-always')
    await armed()
    await page.keyboard.press('y')
    await prompt.waitFor({ state: 'hidden' })
    await page.getByLabel('Approval policy').selectOption('on-request')
  })

  await step('sandbox selector mid-session: Read only denies a write; remedy switches back', async () => {
    await page.getByLabel('Sandbox', { exact: true }).selectOption('read-only')
    await send('save the notes')
    const it = await lastItem(/fs\.write.*denied by the sandbox/)
    const remedy = it.getByRole('button', { name: 'Switch this session to Workspace write' })
    await snap('read-only-denied')
    await remedy.click()
    await page.waitForFunction(() => document.querySelector('select[aria-label="Sandbox"]')?.value === 'workspace-write')
  })

  await step('Full access asks for confirmation', async () => {
    await page.getByLabel('Sandbox', { exact: true }).selectOption('danger-full-access')
    const dlg = page.getByRole('alertdialog', { name: 'Confirm' })
    await dlg.waitFor()
    await snap('full-access-confirm')
    await dlg.getByRole('button', { name: 'Cancel' }).click()
    assert.equal(await page.getByLabel('Sandbox', { exact: true }).inputValue(), 'workspace-write')
  })

  await step('revoke the grant; the same signature asks again', async () => {
    await page.getByRole('tab', { name: /Grants/ }).click()
    const row = page.getByTestId('grant-row').filter({ hasText: 'shell=rm -rf build' })
    await row.waitFor()
    await snap('grants')
    await row.getByRole('button', { name: /Revoke/ }).click()
    await row.waitFor({ state: 'detached' })
    await page.getByRole('tab', { name: 'Chat' }).click()
    mkdirSync(join(workspace, 'build'), { recursive: true })
    await send('!rm -rf build')
    await prompt.waitFor()
    await armed()
    await page.keyboard.press('Escape')
    await prompt.waitFor({ state: 'hidden' })
    await lastItem(/denied by you/)
  })

  await step('planning freeze: /plan on, a write is refused, /plan off', async () => {
    await send('/plan')
    await page.waitForFunction(() => document.querySelector('input[aria-label="Planning freeze"]')?.checked === true)
    await send('!touch planned.txt')
    await lastItem(/denied by the planning freeze/)
    await snap('planning-freeze')
    await send('/plan')
    await page.waitForFunction(() => document.querySelector('input[aria-label="Planning freeze"]')?.checked === false)
  })

  await step('audit trail lists every decision', async () => {
    await page.getByRole('tab', { name: 'Audit trail' }).click()
    await page.getByRole('list', { name: 'Audit events' }).waitFor()
    await page.waitForFunction(() => /^[1-9]/.test(document.querySelector('[data-testid="audit-count"]')?.textContent ?? ''))
    await snap('audit')
    // Live: a command sent while the audit view is open shows up on top
    // without Reload.
    const total = async () => Number((await page.getByTestId('audit-count').innerText()).split(' of ')[1].replace(/[^\d]/g, ''))
    const was = await total()
    const top = await page.locator('[role="listitem"] .r').first().getAttribute('data-seq')
    await page.evaluate(async () => {
      // The page's session cookie signs these in, as it does the app's own.
      const post = async (m, body) => {
        const r = await fetch(`/api/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
        if (!r.ok) throw new Error(`${m}: HTTP ${r.status}`)
        return r.json()
      }
      const [s] = (await post('ListSessions', {})).filter((x) => !x.parent_id).sort((a, b) => b.updated_at - a.updated_at)
      await post('SendMessage', { session_id: s.id, text: '!ls' })
    })
    await page.waitForFunction((n) => Number((document.querySelector('[data-testid="audit-count"]')?.textContent ?? '').split(' of ')[1]?.replace(/[^\d]/g, '')) > n, was)
    const newTop = await page.locator('[role="listitem"] .r').first().getAttribute('data-seq')
    assert.ok(Number(newTop) > Number(top), `the newest event is on top without Reload: #${newTop} after #${top}`)
    assert.ok((await total()) > was)
    // The detail pane: Enter on the list opens the newest row.
    await page.getByRole('list', { name: 'Audit events' }).focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('audit-detail').getByTestId('audit-json').waitFor()
    await snap('audit-detail')
    await page.getByTestId('audit-detail').getByRole('button', { name: 'Close' }).click()
    await page.getByRole('tab', { name: 'Settings' }).click()
    await snap('settings')
    await page.getByRole('tab', { name: 'Chat' }).click()
  })

  await step('Delete archives the session (audit kept); Restore brings it back', async () => {
    await page.getByRole('button', { name: 'Delete e2e walkthrough' }).click()
    const dlg = page.getByRole('alertdialog', { name: 'Confirm' })
    await dlg.waitFor()
    assert.match(await dlg.innerText(), /audit trail are kept/)
    await snap('archive-confirm')
    await dlg.getByRole('button', { name: 'Archive session' }).click()
    await page.getByTestId('archived').locator('summary').click()
    await page.getByRole('button', { name: 'Restore e2e walkthrough' }).click()
    await page.getByRole('heading', { name: 'e2e walkthrough' }).waitFor()
    await page.getByRole('tab', { name: 'Audit trail' }).click()
    await page.waitForFunction(() => /^[1-9]/.test(document.querySelector('[data-testid="audit-count"]')?.textContent ?? ''))
    await page.getByRole('tab', { name: 'Chat' }).click()
  })

  await step('themes and sizes', async () => {
    await page.emulateMedia({ colorScheme: 'dark' })
    await snap('chat-dark')
    await page.setViewportSize({ width: 900, height: 600 })
    // A reader at the end stays at the end when the window shrinks.
    const gap = () => page.evaluate(() => {
      const el = document.querySelector('[role="log"][aria-label="Conversation"]')
      return el ? `${el.scrollHeight - el.scrollTop - el.clientHeight} following=${el.dataset.following}` : -1
    })
    await page.waitForFunction(() => {
      const el = document.querySelector('[role="log"][aria-label="Conversation"]')
      return el && el.scrollHeight - el.scrollTop - el.clientHeight < 4
    }, null, { timeout: 3000 }).catch(async (e) => {
      throw new Error(`the chat did not stay at the end after a resize: ${await gap()} px from the end (${e.message})`)
    })
    await snap('chat-900x600')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)
    assert.equal(overflow, false, 'no horizontal overflow at 900×600')
    await page.setViewportSize({ width: 3840, height: 2160 })
    await snap('chat-4k-dark')
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false, 'no overflow at 4K')
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 1280, height: 800 })
    // Keyboard: Tab alone reaches every control that matters.
    const seen = new Set()
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab')
      seen.add(await page.evaluate(() => {
        const a = document.activeElement
        return a?.getAttribute('aria-label') || a?.textContent?.trim() || ''
      }))
    }
    for (const want of ['New session', 'Chat', 'Grants', 'Message', 'Approval policy', 'Sandbox', 'Network access', 'Planning freeze']) {
      assert.ok(seen.has(want), `Tab reaches ${want}`)
    }
    await send('!rm -rf src')
    await prompt.waitFor()
    await armed()
    await snap('prompt-final')
    await page.keyboard.press('n')
    await prompt.waitFor({ state: 'hidden' })
  })

  const lat = await page.evaluate(() => window.__shown.map((s, i) => s - (window.__arrive[i] ?? NaN)))
  const ok = lat.filter((x) => Number.isFinite(x))
  assert.ok(ok.length >= 5, `measured ${ok.length} prompts`)
  const sorted = ok.slice().sort((a, b) => a - b)
  const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1)
  const summary = `push→prompt visible: n=${ok.length} median=${pct(0.5)} ms max=${sorted.at(-1).toFixed(1)} ms (each: ${ok.map((x) => x.toFixed(1)).join(', ')})`
  console.log(summary)
  writeFileSync(join(out, 'latency.txt'), summary + '\n' + results.join('\n') + '\n')
  // The target is 100 ms; the median must meet it. A single slow frame on a
  // loaded machine is reported (latency.txt), not failed.
  assert.ok(Number(pct(0.5)) < 100, summary)
  assert.deepEqual(errors, [], 'no page errors')
  console.log(`e2e: ${results.length} steps passed; screenshots in ${out}`)
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
