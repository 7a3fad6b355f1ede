// The audit trail at scale, in a real browser: a session seeded with N audit
// rows (bench/auditseed, through the store's append API), `warden serve` on
// that database, the built frontend in headless Chromium. It asserts what a
// user sees (rows appear at once, the end of the list is the oldest event,
// the filter narrows) and measures load time, heap, DOM rows, scroll frame
// times and filter latency.
//
//	node e2e/audit.e2e.mjs                         # 20,000 rows: the CI-size check
//	AUDIT_ROWS=100000 node e2e/audit.e2e.mjs       # the full measurement
//	node e2e/audit.e2e.mjs --rows 100000 --md docs/benchmarks.md --json docs/audit-bench.json
//
// Needs bin/warden (make cli) and frontend/dist (make frontend). The
// screenshot is artifacts/e2e/audit-<N/1000>k.png.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { auditEnv, startServer, writeReport } from './audit/harness.mjs'
import { launch } from './serve.mjs'
import { installProbe, metrics, scrollRun, stats, typeRun } from './audit/probe.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const { values: opt } = parseArgs({
  options: {
    rows: { type: 'string', default: process.env.AUDIT_ROWS ?? '20000' },
    md: { type: 'string' },
    json: { type: 'string' },
    steps: { type: 'string', default: '200' },
  },
})
const rows = Number(opt.rows)
if (!Number.isInteger(rows) || rows < 1000) {
  console.error(`audit e2e: --rows/AUDIT_ROWS must be a whole number of at least 1000, got ${JSON.stringify(opt.rows)}`)
  process.exit(2)
}
const t00 = Date.now()
const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
const tmp = mkdtempSync(join(tmpdir(), 'warden-audit-e2e-'))
const db = join(tmp, 'warden.db')

// Seed through the store: the hash chain is the real one.
const seedBin = join(tmp, 'auditseed')
execFileSync('go', ['build', '-o', seedBin, './bench/auditseed'], { cwd: root, stdio: 'inherit' })
const seeded = JSON.parse(execFileSync(seedBin, ['-db', db, '-rows', String(rows)], { encoding: 'utf8', env: { ...process.env, ...auditEnv(tmp) } }))
console.log(`seeded ${seeded.rows.toLocaleString('en-US')} audit rows (${seeded.events.toLocaleString('en-US')} events) in ${seeded.seconds.toFixed(1)} s`)

const server = await startServer(root, tmp, db)
const api = async (method, args) => {
  const r = await fetch(`${server.base}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: server.cookie },
    body: JSON.stringify(args),
  })
  if (!r.ok) throw new Error(`${method}: HTTP ${r.status} ${await r.text()}`)
  return r.json()
}
// The oldest and newest listed events, straight from the server.
const auditKinds = ['permission_requested', 'permission_granted', 'permission_denied', 'tool_invocation_started',
  'tool_invocation_completed', 'tool_invocation_failed']
const newest = (await api('AuditLog', { session_id: seeded.session_id, kinds: auditKinds, limit: 1 }))[0]
const firstEvents = await api('SessionEvents', { session_id: seeded.session_id, limit: 20 })
const oldest = firstEvents.find((e) => auditKinds.includes(e.kind))
assert.ok(newest && oldest, 'the seeded session has listed events')

const { ctx, userData } = await launch(chromium, { width: 1280, height: 800 }, ['--enable-precise-memory-info'])
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
const cdp = await ctx.newCDPSession(page)
await cdp.send('Performance.enable')
const heapMB = async () => {
  await cdp.send('HeapProfiler.collectGarbage')
  const { metrics } = await cdp.send('Performance.getMetrics')
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]))
  return { heap: m.JSHeapUsedSize / 2 ** 20, nodes: m.Nodes }
}
const digits = (s) => Number(String(s).replace(/[^\d]/g, '') || 0)
const rowSeq = (loc) => loc.locator('.r').first().getAttribute('data-seq').then(digits)

const m = { rows, events: seeded.events, seed_seconds: seeded.seconds, loadavg_start: loadavg()[0] }
const list = page.getByRole('list', { name: 'Audit events' })
const items = list.getByRole('listitem')
try {
  // Opening a session also opens its chat on the newest 2,000 events (one
  // SessionEvents request); it runs alongside, as it does for a user.
  await server.addTo(ctx)
  await page.goto(server.base + '/')
  await page.getByRole('tab', { name: 'Audit trail' }).waitFor()
  m.heap_before_mb = (await heapMB()).heap

  await page.evaluate(installProbe)
  let mt = await metrics(cdp)
  await page.evaluate(() => {
    window.__audit.t0 = performance.now()
    document.querySelector('#tab-audit').click()
  })
  await items.first().waitFor({ timeout: 30000 })
  await page.waitForFunction((n) => {
    const c = document.querySelector('[data-testid="audit-count"]')?.textContent ?? ''
    return c.replace(/[^\d ]/g, '').trim().endsWith(String(n)) && document.querySelector('.audit')?.getAttribute('aria-busy') !== 'true'
  }, rows, { timeout: 120000, polling: 50 })
  const load = await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => res({ ...window.__audit, done: performance.now() }))))
  m.first_rows_ms = load.first - load.t0
  m.full_load_ms = load.done - load.t0
  let mt2 = await metrics(cdp)
  m.load_main_cpu_ms = (mt2.ThreadTime - mt.ThreadTime) * 1000
  const h = await heapMB()
  m.heap_loaded_mb = h.heap
  m.dom_nodes = h.nodes
  m.dom_rows = await items.count()
  const c0 = await page.getByTestId('audit-count').innerText()
  console.log(`ok  first rows in ${m.first_rows_ms.toFixed(0)} ms, all ${rows.toLocaleString('en-US')} in ${m.full_load_ms.toFixed(0)} ms (${c0}); ${m.dom_rows} DOM rows`)
  assert.ok(m.dom_rows > 0 && m.dom_rows < 100, `virtualised: ${m.dom_rows} rows in the DOM`)
  assert.ok(m.first_rows_ms < m.full_load_ms, 'the newest rows show before the whole log has loaded')
  assert.equal(await rowSeq(items.first()), newest.seq, 'the top row is the newest event')

  // Scroll in steps, one per frame, timing the frames: a mouse wheel's
  // 100 px steps, then the whole range (the scrollbar dragged), ending at
  // the bottom.
  const scroll = async (name, px) => {
    const a = await metrics(cdp)
    const sc = await page.evaluate(scrollRun, [Number(opt.steps), px])
    const z = await metrics(cdp)
    Object.assign(m, stats(name, sc.frames), { [`${name}_slow`]: sc.slow, [`${name}_px`]: px ? px * sc.steps : sc.height })
    m[`${name}_cpu_per_step_ms`] = ((z.ThreadTime - a.ThreadTime) * 1000) / sc.steps
    for (const k of ['Script', 'Layout', 'RecalcStyle']) m[`${name}_${k.toLowerCase()}_per_step_ms`] = ((z[`${k}Duration`] - a[`${k}Duration`]) * 1000) / sc.steps
    m.steps = sc.steps
    console.log(`ok  ${name}: ${sc.steps} steps over ${(m[`${name}_px`] / 1e6).toFixed(2)}M px: frame p50 ${m[`${name}_p50_ms`].toFixed(1)} p95 ${m[`${name}_p95_ms`].toFixed(1)} max ${m[`${name}_max_ms`].toFixed(1)} ms, ${m[`${name}_over50`]} over 50 ms; main thread ${m[`${name}_cpu_per_step_ms`].toFixed(1)} ms CPU a step`)
  }
  await scroll('wheel', 100)
  await scroll('drag', 0)
  await page.waitForTimeout(100)
  const last = items.last()
  assert.equal(await rowSeq(last), oldest.seq, 'the end of the list is the oldest event')
  assert.ok((await last.locator('.r').getAttribute('class')).includes(oldest.kind), `the last row is a ${oldest.kind}`)
  console.log(`ok  the end of the list is the oldest event (#${oldest.seq}, ${oldest.kind})`)
  await page.screenshot({ path: join(out, `audit-${Math.round(rows / 1000)}k-end.png`) })
  await list.evaluate((el) => (el.scrollTop = 0))

  // Type a filter, key by key, as a user would.
  const filter = page.getByRole('searchbox', { name: 'Filter audit' })
  await filter.click()
  mt = await metrics(cdp)
  const typed = await typeRun(page, filter, 'rm -rf')
  mt2 = await metrics(cdp)
  m.filter_main_cpu_per_key_ms = ((mt2.ThreadTime - mt.ThreadTime) * 1000) / typed.keys
  Object.assign(m, { filter_ms: typed.latency, filter_last_key_ms: typed.last, filter_per_key_ms: typed.perKey.map(Math.round),
    filter_longest_task_ms: typed.longest })
  const c1 = await page.getByTestId('audit-count').innerText()
  const [shown, of] = c1.split(' of ').map(digits)
  assert.ok(shown > 0 && shown < rows && of === rows, `the filter narrows: ${c1}`)
  for (const t of await items.allInnerTexts()) assert.match(t, /rm -rf/, 'every shown row matches')
  m.filter_matches = shown
  console.log(`ok  filter "rm -rf": ${c1}, slowest key to filtered list painted ${typed.latency.toFixed(0)} ms (per key ${m.filter_per_key_ms.join(', ')}; longest task ${typed.longest.toFixed(0)} ms)`)
  await page.screenshot({ path: join(out, `audit-${Math.round(rows / 1000)}k-filter.png`) })
  await filter.fill('')
  await page.waitForFunction((n) => (document.querySelector('[data-testid="audit-count"]')?.textContent ?? '').replace(/[^\d ]/g, '').trim().startsWith(String(n)), rows)
  await page.screenshot({ path: join(out, `audit-${Math.round(rows / 1000)}k.png`) })

  // The detail pane: a click opens a row, the arrow keys walk the list,
  // Close shuts it and gives the keyboard back to the list.
  await page.getByRole('combobox', { name: 'Event kind' }).selectOption('permission_denied')
  await page.waitForFunction(() => document.querySelectorAll('[role="listitem"] .permission_denied').length > 1)
  const pane = page.getByTestId('audit-detail')
  const denied = items.nth(0)
  const seqA = await rowSeq(denied)
  await denied.click()
  await pane.getByTestId('audit-json').waitFor()
  assert.equal(await pane.locator('h3').innerText(), `#${seqA} Denied`)
  const raw = JSON.parse(await pane.getByTestId('audit-json').innerText())
  assert.equal(raw.seq, seqA, 'the raw JSON is the selected event')
  const steps = await pane.getByTestId('audit-trace').locator('li').allInnerTexts()
  assert.ok(steps.length > 0 && steps.every((t) => / — .* → /.test(t)), `trace steps read step — saw → concluded: ${steps.join(' | ')}`)
  assert.ok((await pane.locator('[data-field="reasons"]').innerText()).length > 1, 'the denial has reasons')
  assert.match(await pane.locator('[data-field="time"]').innerText(), /\d{4}/, 'the time is a full date')
  console.log(`ok  detail pane: #${seqA}, ${steps.length} trace steps (${steps.map((t) => t.split(' — ')[0]).join(', ')})`)
  await page.getByRole('list', { name: 'Audit events' }).focus()
  await page.keyboard.press('ArrowDown')
  const seqB = await rowSeq(items.nth(1))
  await page.waitForFunction((b) => document.querySelector('[data-testid="audit-detail"] h3')?.textContent?.startsWith(`#${b} `), seqB)
  assert.equal(await rowSeq(page.locator('[role="listitem"][aria-current="true"]')), seqB, 'ArrowDown selects the next row')
  console.log(`ok  ArrowDown moves the selection and the pane to #${seqB}`)
  await page.setViewportSize({ width: 900, height: 600 })
  await page.screenshot({ path: join(out, 'audit-detail-900x600.png') })
  const wide = await page.evaluate(() => [...document.querySelectorAll('.audit *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`))
  assert.deepEqual(wide, [], 'nothing in the audit view reaches past the window at 900×600')
  const docWide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  if (docWide > 0) console.log(`note: the page is ${docWide} px wider than the 900 px window (outside the audit view)`)
  assert.ok(await list.evaluate((el) => el.clientHeight > 56), 'the list keeps room beside the pane at 900×600')
  await page.screenshot({ path: join(out, 'audit-detail-900x600.png') })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.screenshot({ path: join(out, 'audit-detail-900x600-dark.png') })
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1280, height: 800 })
  await pane.getByRole('button', { name: 'Close' }).click()
  await pane.waitFor({ state: 'detached' })
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Audit events', 'Close gives the keyboard back to the list')
  await page.getByRole('combobox', { name: 'Event kind' }).selectOption('')
  console.log('ok  Close shuts the pane; screenshots audit-detail-900x600{,-dark}.png')
  assert.deepEqual(errors, [], 'no page errors')
} catch (e) {
  await page.screenshot({ path: join(out, `audit-${Math.round(rows / 1000)}k-failure.png`) }).catch(() => {})
  console.error(`audit e2e failed: ${e.stack ?? e}\nserver log:\n${server.log().slice(-2000)}\npage errors: ${errors.join('\n')}`)
  process.exitCode = 1
} finally {
  await ctx.close()
  server.proc.kill()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
m.total_seconds = (Date.now() - t00) / 1000
m.loadavg_end = loadavg()[0]
console.log(JSON.stringify(m))
if (!process.exitCode) {
  writeReport(m, opt)
  console.log(`audit e2e: passed in ${m.total_seconds.toFixed(1)} s`)
}
