// End to end: answering an ask from another device (issue 35), in Chromium
// against a real `warden serve` running the built-in demo. The window's
// session stops at the demo's `rm -rf build` ask; a link made for it
// (RemoteLink, the window's own API) is opened in a second, separate browser
// context — the other device — which sees the ask and allows it once: the
// call runs (build/ is gone) and the window's prompt closes. The same link
// opened again, in that context or a third, is refused (410); a POST to a
// live link from a foreign Origin is refused (403) and answers nothing; and a
// link whose ask the window answered first is dead (410). Screenshots in
// artifacts/e2e/remote-*.png. Run with `make e2e`.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { serve, launch } from './serve.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
// Outside /tmp: the cage's /tmp is private, and the demo's commands run in it.
const base = process.env.WARDEN_E2E_TMP ?? join(root, 'artifacts', 'tmp')
mkdirSync(base, { recursive: true })
const tmp = realpathSync(mkdtempSync(join(base, 'remote-')))
const ws = join(tmp, 'shop')
mkdirSync(join(ws, 'build'), { recursive: true })
writeFileSync(join(ws, 'README.md'), '# shop\n')
writeFileSync(join(ws, 'build', 'app.bin'), 'old build\n')

const env = {
  ...process.env,
  XDG_DATA_HOME: join(tmp, 'data'),
  XDG_CONFIG_HOME: join(tmp, 'config'),
  XDG_STATE_HOME: join(tmp, 'state'),
  ANTHROPIC_API_KEY: '',
  OPENAI_API_KEY: '',
  WARDEN_DB: '',
}
const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--static', join(root, 'frontend', 'dist')], env, { cwd: ws })
const { ctx, userData } = await launch(chromium, { width: 1280, height: 860 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
const others = []
const prompt = page.getByRole('dialog', { name: 'Permission request' })
const composer = page.getByRole('textbox', { name: 'Message' })

// api calls a method the way the window does: from the window's page, with
// its session cookie.
const api = (method, body) =>
  page.evaluate(
    async ([m, b]) => {
      const r = await fetch(`/api/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) })
      return { status: r.status, body: await r.json().catch(() => null) }
    },
    [method, body],
  )
async function pendingAsk() {
  await prompt.waitFor({ timeout: 60000 })
  const r = await api('PendingApprovals', {})
  assert.equal(r.status, 200, JSON.stringify(r.body))
  assert.equal(r.body.length, 1, 'one ask waits')
  return r.body[0]
}
async function linkFor(ask) {
  const r = await api('RemoteLink', { request_id: ask.request_id })
  assert.equal(r.status, 200, JSON.stringify(r.body))
  assert.match(r.body.url, /\/remote\/[^/]+$/)
  assert.match(r.body.qr_svg, /^<svg/)
  return r.body.url
}
// device opens url in a browser context of its own (no cookie of the
// window's), as a phone would.
async function device(url) {
  const d = await launch(chromium, { width: 420, height: 860 })
  others.push(d)
  const p = d.ctx.pages()[0] ?? (await d.ctx.newPage())
  const res = await p.goto(url)
  return { page: p, status: res.status(), ctx: d.ctx }
}
const results = []
async function step(name, f) {
  const t0 = Date.now()
  await f()
  results.push(`${name} (${Date.now() - t0} ms)`)
  console.log(`ok  ${name}`)
}

try {
  await page.goto(server.url)
  await page.getByTestId('welcome').waitFor()
  await page.keyboard.type('Show me the demo, answered from my phone')
  await page.keyboard.press('Enter')

  let url
  await step('the demo stops at its delete; a link is made for that ask', async () => {
    const ask = await pendingAsk()
    assert.match(await prompt.innerText(), /rm -rf build/)
    url = await linkFor(ask)
  })

  await step('the other device sees the ask and allows it once: the call runs, the window\'s prompt closes', async () => {
    const phone = await device(url)
    assert.equal(phone.status, 200)
    assert.match(await phone.page.locator('body').innerText(), /rm -rf build/)
    await phone.page.screenshot({ path: join(out, 'remote-1-ask.png') })
    await phone.page.getByTestId('allow-once').click()
    await phone.page.getByText('The call runs now. This link is spent.').waitFor().catch(async (e) => {
      await phone.page.screenshot({ path: join(out, 'remote-failure-device.png') })
      console.error(await phone.page.locator('body').innerText())
      throw e
    })
    await phone.page.screenshot({ path: join(out, 'remote-2-allowed.png') })
    await prompt.waitFor({ state: 'hidden', timeout: 20000 })
    for (let i = 0; i < 100 && existsSync(join(ws, 'build')); i++) await new Promise((r) => setTimeout(r, 100))
    assert.ok(!existsSync(join(ws, 'build')), 'the delete ran')
    // Replayed, on the same device and on another: the link is spent.
    const again = await phone.page.goto(url)
    assert.equal(again.status(), 410)
    const third = await device(url)
    assert.equal(third.status, 410)
    assert.match(await third.page.locator('body').innerText(), /already used/i)
  })

  await step('the audit names the other device as the front end that answered', async () => {
    const sessions = await api('ListSessions', {})
    const id = sessions.body[0].id
    const log = await api('AuditLog', { session_id: id, kinds: ['permission_granted'] })
    const granted = log.body.filter((e) => e.data.source === 'human:once')
    assert.equal(granted.length, 1, JSON.stringify(log.body))
    assert.equal(granted[0].data.layer, 'human')
    assert.equal(granted[0].data.layer_detail, 'remote')
  })

  await step('a foreign Origin is refused and answers nothing; a link whose ask the window answered is dead', async () => {
    mkdirSync(join(ws, 'build'), { recursive: true })
    writeFileSync(join(ws, 'build', 'app.bin'), 'old build\n')
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: 60000 })
    await composer.fill('!rm -rf build')
    await composer.press('Enter')
    const ask = await pendingAsk()
    const link = await linkFor(ask)
    const phone = await device(link)
    assert.equal(phone.status, 200)
    // The page's own form, posted from another site's origin.
    const html = await phone.page.content()
    const nonce = /name="nonce" value="([^"]+)"/.exec(html)?.[1]
    assert.ok(nonce, 'the page carries its nonce')
    const cookies = await phone.ctx.cookies(link)
    const forged = await fetch(link, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://evil.example',
        Cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '),
      },
      body: new URLSearchParams({ nonce, answer: 'once' }).toString(),
    })
    assert.equal(forged.status, 403)
    assert.ok(existsSync(join(ws, 'build', 'app.bin')), 'the forged answer ran nothing')
    assert.equal((await api('PendingApprovals', {})).body.length, 1, 'the ask still waits')
    // The window answers first (deny): the link dies with its ask.
    await prompt.getByRole('button', { name: /^Deny/ }).first().click()
    await prompt.waitFor({ state: 'hidden', timeout: 20000 })
    const dead = await phone.page.reload()
    assert.equal(dead.status(), 410)
    assert.ok(existsSync(join(ws, 'build', 'app.bin')), 'the denied call did not run')
    await phone.page.screenshot({ path: join(out, 'remote-3-dead.png') })
  })

  assert.deepEqual(errors, [], 'no page errors')
  console.log(`remote e2e: ${results.length} steps passed`)
} catch (e) {
  await page.screenshot({ path: join(out, 'remote-failure.png') }).catch(() => {})
  console.error(server.log())
  throw e
} finally {
  for (const d of others) {
    await d.ctx.close().catch(() => {})
    rmSync(d.userData, { recursive: true, force: true })
  }
  await ctx.close()
  server.proc.kill()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
