// Node-side helpers of the audit measurement: the server and the report.
import { serve, signIn } from '../serve.mjs'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// auditEnv keeps the run's data and config (the audit key the seeder and
// the server chain with) in tmp.
export function auditEnv(tmp) {
  return { XDG_DATA_HOME: join(tmp, 'data'), XDG_CONFIG_HOME: join(tmp, 'config') }
}

// startServer runs `warden serve` on db, signs in from Node and resolves
// with its base URL, the session cookie for Node's API calls and addTo,
// which gives a browser context the same cookie (the one-time code is
// spent: the page opens base).
export async function startServer(root, tmp, db) {
  const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run make cli`)
  // WARDEN_STATIC serves another build, e.g. an older one to compare with.
  const dist = process.env.WARDEN_STATIC ?? join(root, 'frontend', 'dist')
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} is missing: run make frontend`)
  const args = ['serve', '--addr', '127.0.0.1:0', '--db', db, '--static', dist, '--model', 'demo']
  const server = await serve(bin, args, { ...process.env, ...auditEnv(tmp) })
  const session = await signIn(server.url)
  return { ...server, base: session.base, cookie: session.cookie, addTo: session.addTo }
}

const begin = '<!-- audit-e2e:begin -->'
const end = '<!-- audit-e2e:end -->'

// markdown renders the figures as the benchmarks page's section.
export function markdown(m, when = new Date()) {
  const f = (x, d = 0) => Number(x).toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d })
  return `${begin}
## Audit trail in the browser (${f(m.rows)} rows)

One session seeded with ${f(m.rows)} audit rows (${f(m.events)} events with the tool output and messages between them;
\`bench/auditseed\`), \`warden serve\` on it, the built frontend in headless Chromium (1280×800, no GPU), measured by
\`e2e/audit.e2e.mjs --rows ${m.rows}\` on ${when.toISOString().slice(0, 16).replace('T', ' ')} UTC, one run; load average
${f(m.loadavg_start, 2)} at the start and ${f(m.loadavg_end, 2)} at the end. Frame times are wall clock and suffer from a busy
machine; main-thread CPU (CDP ThreadTime) does not.

| Figure | Value | Target |
|---|---|---|
| Open Audit → first rows painted | ${f(m.first_rows_ms)} ms | < 1,000 ms |
| Open Audit → all ${f(m.rows)} rows loaded | ${f(m.full_load_ms)} ms | (background, with progress) |
| JS heap, all rows loaded (after GC) | ${f(m.heap_loaded_mb, 1)} MB (${f(m.heap_before_mb, 1)} MB before opening) | |
| DOM rows / DOM nodes | ${f(m.dom_rows)} / ${f(m.dom_nodes)} | |
| Wheel: ${m.steps} steps of 100 px, one per frame: frame p50 / p95 / max | ${f(m.wheel_p50_ms, 1)} / ${f(m.wheel_p95_ms, 1)} / ${f(m.wheel_max_ms, 1)} ms; ${m.wheel_over50} over 50 ms | p95 < 20 ms |
| Wheel: main-thread CPU a step (script / layout / style, wall) | ${f(m.wheel_cpu_per_step_ms, 1)} ms (${f(m.wheel_script_per_step_ms, 1)} / ${f(m.wheel_layout_per_step_ms, 1)} / ${f(m.wheel_recalcstyle_per_step_ms, 1)} ms) | < 16.7 ms |
| Drag top → bottom (${f(m.drag_px / 1e6, 2)}M px) in ${m.steps} steps: frame p50 / p95 / max | ${f(m.drag_p50_ms, 1)} / ${f(m.drag_p95_ms, 1)} / ${f(m.drag_max_ms, 1)} ms; ${m.drag_over50} over 50 ms | p95 < 20 ms |
| Drag: main-thread CPU a step (script / layout / style, wall) | ${f(m.drag_cpu_per_step_ms, 1)} ms (${f(m.drag_script_per_step_ms, 1)} / ${f(m.drag_layout_per_step_ms, 1)} / ${f(m.drag_recalcstyle_per_step_ms, 1)} ms) | < 16.7 ms |
| Filter "rm -rf" typed key by key (80 ms apart): key → filtered list painted, slowest key | ${f(m.filter_ms)} ms (per key ${m.filter_per_key_ms.join(', ')}; longest task ${f(m.filter_longest_task_ms)} ms) | < 150 ms |
| Filter matches / main-thread CPU per key | ${f(m.filter_matches)} of ${f(m.rows)} / ${f(m.filter_main_cpu_per_key_ms, 1)} ms | |
| Main-thread CPU for the whole load | ${f(m.load_main_cpu_ms)} ms | |

The session's chat opens alongside, as for a user: its newest 2,000 events in one SessionEvents request. The whole
run (seed, serve, browser) took ${f(m.total_seconds, 1)} s.
${end}
`
}

// writeReport writes the figures as JSON and into the markdown file's
// audit section, replacing the previous one or appending it.
export function writeReport(m, opt) {
  if (opt.json) writeFileSync(opt.json, JSON.stringify(m, null, 2) + '\n')
  if (!opt.md) return
  const prev = existsSync(opt.md) ? readFileSync(opt.md, 'utf8') : ''
  const sec = markdown(m)
  const i = prev.indexOf(begin)
  const j = prev.indexOf(end)
  const next = i >= 0 && j > i ? prev.slice(0, i) + sec.trimEnd() + prev.slice(j + end.length) : prev.trimEnd() + (prev ? '\n\n' : '') + sec
  writeFileSync(opt.md, next)
}
