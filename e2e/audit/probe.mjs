// Page-side probes of the audit measurement. The functions passed to
// page.evaluate run in the browser, so they use nothing from this module.

// Main-thread figures from CDP: ThreadTime is the renderer main thread's
// CPU time, which other processes on a busy machine do not inflate.
export async function metrics(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics')
  return Object.fromEntries(metrics.map((x) => [x.name, x.value]))
}

// Records when the first audit row is in the DOM (after the frame that
// shows it), relative to window.__audit.t0, which the caller sets.
export function installProbe() {
  window.__audit = { t0: 0, first: 0 }
  const mo = new MutationObserver(() => {
    if (window.__audit.first || !document.querySelector('[aria-label="Audit events"] [role="listitem"]')) return
    window.__audit.first = -1
    requestAnimationFrame(() => setTimeout(() => (window.__audit.first = performance.now()), 0))
    mo.disconnect()
  })
  mo.observe(document, { childList: true, subtree: true })
}

// Scrolls the list one step per animation frame and returns the
// frame-to-frame times: with px 0, from top to bottom in `steps` equal
// steps (dragging the scrollbar); otherwise `px` a step from the top, as a
// mouse wheel does.
export async function scrollRun([steps, px]) {
  const el = document.querySelector('[role="list"][aria-label="Audit events"]')
  el.scrollTop = 0
  const height = el.scrollHeight - el.clientHeight
  const frame = () => new Promise((res) => requestAnimationFrame(res))
  await frame()
  const frames = []
  let prev = await frame()
  for (let i = 0; i < steps; i++) {
    el.scrollTop = px ? px * (i + 1) : Math.round((height * (i + 1)) / steps)
    const t = await frame()
    frames.push(t - prev)
    prev = t
  }
  // Two more frames: the last step's rows render on the frame after it.
  for (let i = 0; i < 2; i++) {
    const t = await frame()
    frames.push(t - prev)
    prev = t
  }
  const slow = frames.flatMap((f, i) => (f > 50 ? [`${i}:${Math.round(f)}`] : []))
  return { frames, steps, height, slow }
}

// Types text key by key into the filter. For each key it times the input
// event to the first frame that shows the list filtered by the text typed
// so far (the section's data-filter names the query its list reflects; a
// list without it updates in the input's own task), and it records the
// longest main-thread task while typing.
export async function typeRun(page, input, text) {
  await page.evaluate(() => {
    const s = (window.__typing = { lat: [], longest: 0 })
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) s.longest = Math.max(s.longest, e.duration)
    }).observe({ type: 'longtask' })
    const el = document.querySelector('input[aria-label="Filter audit"]')
    el.addEventListener('input', (e) => {
      const want = el.value
      const i = s.lat.push(-1) - 1
      // A rAF callback runs just before its frame paints; the task after
      // it runs once the frame is out.
      const check = () => {
        const sec = document.querySelector('.audit')
        const applied = sec?.hasAttribute('data-filter') ? sec.getAttribute('data-filter') : want
        if (applied === want) setTimeout(() => (s.lat[i] = performance.now() - e.timeStamp), 0)
        else requestAnimationFrame(check)
      }
      requestAnimationFrame(check)
    })
  })
  await input.pressSequentially(text, { delay: 80 })
  await page
    .waitForFunction((n) => window.__typing.lat.length === n && window.__typing.lat.every((x) => x >= 0), text.length, { timeout: 10000 })
    .catch(async (e) => {
      const st = await page.evaluate(() => [JSON.stringify(window.__typing), document.querySelector('.audit')?.getAttribute('data-filter')])
      throw new Error(`the filter never showed what was typed: ${st.join(' ')}: ${e.message}`)
    })
  await page.waitForTimeout(50) // the observer delivers long tasks late
  const s = await page.evaluate(() => window.__typing)
  return { latency: Math.max(...s.lat), last: s.lat[s.lat.length - 1], perKey: s.lat, longest: s.longest, keys: s.lat.length }
}

// p50, p95, max and the count over 50 ms of a list of frame times.
export function stats(name, xs) {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))]
  return {
    [`${name}_p50_ms`]: q(0.5),
    [`${name}_p95_ms`]: q(0.95),
    [`${name}_max_ms`]: s[s.length - 1],
    [`${name}_over50`]: s.filter((x) => x > 50).length,
    [`${name}s`]: s.length,
  }
}
