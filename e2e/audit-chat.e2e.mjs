// Opening a long session's chat in a real browser: a session seeded with N
// audit rows (bench/auditseed), `warden serve`, the built frontend in
// headless Chromium. It measures the time from loading the page to the chat
// being interactive (the newest item painted and the main thread free again)
// and checks "Show earlier" keeps the reader's place. The chat opens on the
// session's newest page of events; up to --walk rows it then clicks "Show
// earlier" (revealing, then fetching older pages) until the session's first
// message is on screen and the button is gone.
//
//	node e2e/audit-chat.e2e.mjs --rows 100000
//	node e2e/audit-chat.e2e.mjs --rows 5000          (walks back to the first message)
//	WARDEN_STATIC=/path/to/old/dist node e2e/audit-chat.e2e.mjs --rows 20000 --timeout 120000
//
// Needs bin/warden (make cli) and frontend/dist (make frontend).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { auditEnv, startServer } from './audit/harness.mjs'
import { launch } from './serve.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const { values: opt } = parseArgs({
  options: {
    rows: { type: 'string', default: process.env.AUDIT_ROWS ?? '20000' },
    timeout: { type: 'string', default: '300000' },
    walk: { type: 'string', default: '10000' },
  },
})
const rows = Number(opt.rows)
const timeout = Number(opt.timeout)
const walkMax = Number(opt.walk)
if (!Number.isInteger(rows) || rows < 1000 || !(timeout > 0) || !(walkMax >= 0)) {
  console.error(`audit-chat e2e: --rows must be a whole number of at least 1000, --timeout positive and --walk at least 0, got ${JSON.stringify(opt)}`)
  process.exit(2)
}
const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
const tmp = mkdtempSync(join(tmpdir(), 'warden-audit-chat-'))
const db = join(tmp, 'warden.db')
const seedBin = join(tmp, 'auditseed')
execFileSync('go', ['build', '-o', seedBin, './bench/auditseed'], { cwd: root, stdio: 'inherit' })
const seeded = JSON.parse(execFileSync(seedBin, ['-db', db, '-rows', String(rows)], { encoding: 'utf8', env: { ...process.env, ...auditEnv(tmp) } }))
console.log(`seeded ${seeded.rows.toLocaleString('en-US')} audit rows (${seeded.events.toLocaleString('en-US')} events)`)

const server = await startServer(root, tmp, db)
const { ctx, userData } = await launch(chromium, { width: 1280, height: 800 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
const m = { rows, events: seeded.events, loadavg_start: loadavg()[0], static: process.env.WARDEN_STATIC ?? 'frontend/dist' }
const log = page.getByRole('log', { name: 'Conversation' })
const cdp = await ctx.newCDPSession(page)
await cdp.send('Performance.enable')
const perf = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]))
// The page's own request for each SessionEvents page, start to end, and
// the bytes of JSON it carried.
const fetches = []
const bodies = []
page.on('requestfinished', async (r) => {
  if (!r.url().endsWith('/api/SessionEvents')) return
  fetches.push(r.timing())
  bodies.push(r.sizes().then((z) => z.responseBodySize))
})
const api = async (method, args) => {
  const r = await fetch(`${server.base}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: server.cookie },
    body: JSON.stringify(args),
  })
  if (!r.ok) throw new Error(`${method}: HTTP ${r.status} ${await r.text()}`)
  return r.json()
}
try {
  const p0 = await perf()
  const t0 = Date.now()
  await server.addTo(ctx)
  await page.goto(server.base + '/')
  // Interactive: the transcript has its items (the newest is painted) and a
  // frame after that comes round, so the main thread is free for input.
  await page.waitForFunction(() => document.querySelectorAll('[role="log"] > *:not(.empty)').length > 10, null, { timeout, polling: 100 })
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))))
  m.chat_interactive_ms = Date.now() - t0
  const p1 = await perf()
  for (const k of ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration']) m[`main_${k.replace('Duration', '').toLowerCase()}_ms`] = Math.round((p1[k] - p0[k]) * 1000)
  m.session_events_requests = fetches.length
  m.session_events_wait_ms = Math.round(fetches.reduce((a, t) => a + (t.responseEnd - t.requestStart), 0))
  m.session_events_mb = Math.round(((await Promise.all(bodies)).reduce((a, b) => a + b, 0) / 1e6) * 10) / 10
  m.dom_items = await log.evaluate((el) => el.children.length)
  m.dom_nodes = await page.evaluate(() => document.getElementsByTagName('*').length)
  console.log(`ok  chat interactive ${m.chat_interactive_ms} ms after navigation; ${m.dom_items} items, ${m.dom_nodes} DOM nodes; main thread busy ${m.main_task_ms} ms (script ${m.main_script_ms} ms); ${m.session_events_requests} SessionEvents requests (${m.session_events_mb} MB) waited ${m.session_events_wait_ms} ms`)

  const earlier = page.getByTestId('show-earlier')
  if (await earlier.count()) {
    assert.ok(m.dom_items < 400, `the chat renders a window, not ${m.dom_items} items`)
    const before = await earlier.innerText()
    // Scrolled to the top, the reader looks at the first rendered item; after
    // Show earlier it must still be where it was.
    const first = await log.locator(':scope > *').nth(1).elementHandle()
    await log.evaluate((el) => (el.scrollTop = 0))
    const y0 = await first.evaluate((el) => el.getBoundingClientRect().top)
    const t1 = Date.now()
    await earlier.click()
    await page.waitForFunction((b) => document.querySelector('[data-testid="show-earlier"]')?.textContent?.trim() !== b, before.trim())
    m.show_earlier_ms = Date.now() - t1
    const y1 = await first.evaluate((el) => el.getBoundingClientRect().top)
    assert.ok(Math.abs(y1 - y0) < 2, `Show earlier keeps the reader's place: item moved from ${y0} to ${y1}`)
    console.log(`ok  "${before.trim()}" → "${(await earlier.innerText()).trim()}" in ${m.show_earlier_ms} ms; the item in view stayed put`)
    await page.screenshot({ path: join(out, `audit-chat-${Math.round(rows / 1000)}k.png`) })
  }
  if (rows <= walkMax) {
    // The session's first chat message, from the API, must be reached.
    const head = await api('SessionEvents', { session_id: seeded.session_id, limit: 200 })
    const firstMsg = head.find((e) => e.kind === 'message_appended' && e.data.role !== 'tool' && e.data.text)
    assert.ok(firstMsg, 'the seeded session has a message in its first 200 events')
    const t2 = Date.now()
    const requestsBefore = fetches.length
    let clicks = 0
    while (await earlier.count()) {
      assert.ok(clicks++ < 2000, 'Show earlier ends')
      const label = (await earlier.innerText()).trim()
      const n = await log.evaluate((el) => el.children.length)
      // The message nearest the top stays put whether the click revealed
      // loaded items or fetched and refolded an earlier page. (A tool item
      // at the top of a tail page may be a call started on the older page;
      // the refold replaces it with the whole call, so a message is watched.)
      const top = await log.locator('.md').first().elementHandle()
      await log.evaluate((el) => (el.scrollTop = 0))
      const y0 = await top.evaluate((el) => el.getBoundingClientRect().top)
      await earlier.click()
      // Done when the window grew or the button went (the last page).
      await page.waitForFunction(
        ([b, k]) => {
          const btn = document.querySelector('[data-testid="show-earlier"]')
          const l = document.querySelector('[role="log"]')
          return !btn || (btn.textContent?.trim() !== b && !btn.hasAttribute('disabled')) || (l && l.children.length > k)
        },
        [label, n],
        { timeout },
      )
      assert.equal(await page.getByTestId('history-error').count(), 0, 'no error while paging back')
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))))
      if (label === 'Show earlier') m.walk_fetch_clicks = (m.walk_fetch_clicks ?? 0) + 1
      const y1 = await top.evaluate((el) => (el.isConnected ? el.getBoundingClientRect().top : NaN))
      assert.ok(Math.abs(y1 - y0) < 2, `"${label}" keeps the reader's place: item moved from ${y0} to ${y1}`)
    }
    m.walk_ms = Date.now() - t2
    m.walk_clicks = clicks
    m.walk_requests = fetches.length - requestsBefore
    const firstShown = (await log.locator('.md').first().innerText()).trim()
    assert.equal(firstShown, firstMsg.data.text.trim(), 'Show earlier reaches the session\'s first message')
    m.dom_items_walked = await log.evaluate((el) => el.children.length)
    console.log(`ok  Show earlier reached the first message ("${firstShown}") in ${clicks} clicks, ${m.walk_requests} earlier pages, ${m.walk_ms} ms; ${m.dom_items_walked} items rendered`)
  }
  assert.deepEqual(errors, [], 'no page errors')
} catch (e) {
  m.failed = String(e.message ?? e).split('\n')[0]
  console.error(`audit-chat e2e failed: ${e.stack ?? e}\npage errors: ${errors.join('\n')}`)
  process.exitCode = 1
} finally {
  await ctx.close()
  server.proc.kill()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
m.loadavg_end = loadavg()[0]
console.log(JSON.stringify(m))
