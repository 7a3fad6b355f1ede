// The organisation policy in the window (org.sh mounts a signed policy over
// /etc/warden first): against a real `warden serve` in headless Chromium,
// the status bar shows Full access and Never ask locked with the policy's
// file, the network switch cannot be turned on, Settings shows the same
// locks on the default axes, the Grants panel lists the organisation's rule
// as read-only with its source, and a switch the API is asked for anyway is
// refused naming the policy; the audit export the policy requires runs
// although the user's file turns it off. Screenshots go to
// artifacts/e2e/org-*.png.
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

const tmp = mkdtempSync(join(tmpdir(), 'warden-org-e2e-'))
const workspace = join(tmp, 'ws')
mkdirSync(join(workspace, 'build'), { recursive: true })
writeFileSync(join(workspace, 'README.md'), '# org workspace\n')
const env = { ...process.env, XDG_DATA_HOME: join(tmp, 'data'), XDG_CONFIG_HOME: join(tmp, 'config') }
// The user turns the export off; the organisation requires it.
mkdirSync(join(tmp, 'config', 'warden'), { recursive: true })
writeFileSync(join(tmp, 'config', 'warden', 'config.toml'), '[telemetry]\nenabled = false\n')
const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
const db = join(tmp, 'warden.db')

const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--db', db, '--static', join(root, 'frontend', 'dist')], env)
const { ctx, userData } = await launch(chromium, { width: 1280, height: 800 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
try {
  await page.goto(server.url)
  await page.getByRole('button', { name: 'New session' }).click()
  await page.getByLabel('Workspace folder').fill(workspace)
  await page.getByLabel('Title (optional)').fill('under the org policy')
  await page.getByRole('button', { name: 'Create' }).click()
  await page.getByRole('heading', { name: 'under the org policy' }).waitFor()
  const sandbox = page.getByLabel('Sandbox', { exact: true })
  await sandbox.waitFor()
  const full = sandbox.locator('option[value="danger-full-access"]')
  // (an <option>'s disabled is its attribute: Playwright's isDisabled
  // reads form controls only)
  assert.notEqual(await full.getAttribute('disabled'), null, 'Full access is not locked')
  assert.equal(await full.getAttribute('title'), "Set by your organisation's policy (/etc/warden/policy.toml)")
  const never = page.getByLabel('Approval policy', { exact: true }).locator('option[value="never"]')
  assert.notEqual(await never.getAttribute('disabled'), null, 'Never ask is not locked')
  assert.equal(await page.getByRole('switch', { name: 'Network access' }).isDisabled(), true, 'network can be turned on')
  const locks = page.getByTestId('org-lock')
  assert.ok((await locks.count()) >= 2, 'no lock beside the selectors')
  assert.match(await locks.first().getAttribute('aria-label'), /organisation's policy \(\/etc\/warden\/policy\.toml\)/)
  await page.screenshot({ path: join(out, 'org-statusbar.png') })

  // The API refuses what the selectors do not offer, naming the policy.
  const info = await page.evaluate(async () => {
    const r = await fetch('/api/ListSessions', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } })
    const [s] = await r.json()
    const x = await fetch('/api/SetSandboxPolicy', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ session_id: s.id, sandbox: { kind: 'danger-full-access', network_access: false, writable_roots: [] } }),
    })
    return { status: x.status, body: await x.text() }
  })
  assert.equal(info.status, 403)
  assert.match(info.body, /\/etc\/warden\/policy\.toml/)

  // The Grants panel lists the organisation's rule, read-only.
  await page.getByRole('tab', { name: 'Grants' }).click()
  const rule = page.getByTestId('rule-row').first()
  await rule.waitFor()
  assert.match(await rule.textContent(), /Organisation/)
  assert.match(await rule.textContent(), /read-only/)
  assert.match(await rule.textContent(), /\/etc\/warden\/policy\.toml:9/)
  await page.screenshot({ path: join(out, 'org-grants.png') })

  // Settings: the default axes carry the same locks.
  await page.getByRole('tab', { name: 'Settings' }).click()
  const def = page.getByLabel('Default sandbox')
  await def.waitFor()
  assert.notEqual(await def.locator('option[value="danger-full-access"]').getAttribute('disabled'), null)
  await page.getByTestId('def-org').waitFor()
  await page.getByTestId('def-org').scrollIntoViewIfNeeded()
  await page.screenshot({ path: join(out, 'org-settings.png') })

  // The audit export runs although the user's file turns it off: the
  // organisation requires it, to its collector.
  const exportPanel = page.getByRole('region', { name: 'Audit export (OpenTelemetry)' })
  await exportPanel.getByTestId('telemetry-endpoint').waitFor()
  assert.equal(await exportPanel.getByTestId('telemetry-endpoint').textContent(), 'http://127.0.0.1:9')
  assert.match(await exportPanel.textContent(), /required by your organisation/)
  assert.match(await exportPanel.textContent(), /Set by your organisation\s*endpoint/)
  await exportPanel.scrollIntoViewIfNeeded()
  await page.screenshot({ path: join(out, 'org-telemetry.png') })
  assert.deepEqual(errors, [])
  console.log('org e2e: ok (screenshots in artifacts/e2e/org-*.png)')
} finally {
  await ctx.close()
  server.proc.kill()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
