// End to end: network through Warden's proxy in Chromium against a real
// `warden serve` (issue 16). A loopback HTTP server on 127.0.0.2 stands in
// for a package registry; `warden serve --approval never --network
// --allow-host` admits it. A `!curl` in the chat reaches it through the
// cage's proxy and the chat shows "Network: … (allowed by …)"; the audit
// trail filters the connection; the Settings Network card saves a preset to
// config.toml. Screenshots go to artifacts/e2e/network-*.png.
//
// Needs bin/warden and frontend/dist: `make cli frontend && node e2e/network.e2e.mjs`.
import assert from 'node:assert/strict'
import { serve, launch } from './serve.mjs'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
const tmp = mkdtempSync(join(tmpdir(), 'warden-e2e-network-'))
const workspace = join(tmp, 'ws')
mkdirSync(workspace, { recursive: true })
writeFileSync(join(workspace, 'README.md'), '# network e2e workspace\n')
const configPath = join(tmp, 'config', 'warden', 'config.toml')

let hits = 0
const registry = createServer((_req, res) => {
  hits++
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end('{"name":"tiny-pkg","dist-tags":{"latest":"1.0.0"}}')
})
await new Promise((r) => registry.listen(0, '127.0.0.2', r))
let secondHits = 0
const second = createServer((_req, res) => {
  secondHits++
  res.end('second-registry')
})
await new Promise((r) => second.listen(0, '127.0.0.3', r))
const dest = `127.0.0.2:${registry.address().port}`

const server = await serve(join(root, 'bin', 'warden'), ['serve', '--addr', '127.0.0.1:0', '--db', join(tmp, 'w.db'),
  '--static', join(root, 'frontend', 'dist'), '--approval', 'never', '--network', '--allow-host', dest],
{ ...process.env, XDG_DATA_HOME: join(tmp, 'data'), XDG_CONFIG_HOME: join(tmp, 'config') })
const { ctx, userData } = await launch(chromium, { width: 1280, height: 860 })
let failed = false
try {
  const page = await ctx.newPage()
  await page.goto(server.url)
  await page.getByText('No sessions yet').waitFor()
  await page.getByRole('button', { name: 'New session' }).click()
  await page.getByLabel('Workspace folder').fill(workspace)
  await page.getByLabel('Title (optional)').fill('network e2e')
  await page.getByRole('button', { name: 'Create' }).click()
  await page.getByRole('heading', { name: 'network e2e' }).waitFor()

  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill(`!curl -sS http://${dest}/tiny-pkg`)
  await composer.press('Enter')
  await page.getByText(`Network: ${dest} (allowed by [network] allow ${dest})`).waitFor({ timeout: 30000 })
  assert.ok(hits >= 1, 'the registry stand-in was reached')
  await page.screenshot({ path: join(out, 'network-chat.png') })

  // The same command to a loopback port nobody listed is refused by the
  // proxy and never connects.
  const before = hits
  await composer.fill(`!curl -sS --noproxy '' http://127.0.0.1:${registry.address().port}/`)
  await composer.press('Enter')
  await page.getByText(/Network: 127\.0\.0\.1:\d+ refused \(Private address\)/).waitFor({ timeout: 30000 })
  assert.equal(hits, before, 'the refused destination was never connected')

  // On request, an unlisted destination is asked about in the prompt;
  // "Always allow" for the session remembers net:<host>:<port>.
  await page.getByLabel('Approval policy').selectOption('on-request')
  const asked = `127.0.0.3:${second.address().port}`
  await composer.fill(`!python3 -c "import urllib.request as u; print(u.urlopen('http://${asked}/ask').read().decode())"`)
  await composer.press('Enter')
  const prompt = page.getByRole('dialog', { name: 'Permission request' })
  await prompt.waitFor({ timeout: 30000 })
  assert.match(await prompt.innerText(), new RegExp(`Always allow will cover: net:${asked.replace(/\./g, '\\.')}`))
  assert.equal(secondHits, 0, 'nothing connected while the ask waits')
  await page.screenshot({ path: join(out, 'network-prompt.png') })
  await prompt.getByLabel('This session').check()
  await prompt.getByRole('button', { name: 'Always allow' }).click()
  await page.getByText(`Network: ${asked} (allowed by you, always)`).waitFor({ timeout: 30000 })
  assert.equal(secondHits, 1, 'the approved destination was reached')

  await page.getByRole('tab', { name: 'Settings' }).or(page.getByRole('button', { name: 'Settings' })).first().click()
  await page.getByRole('heading', { name: 'Network' }).waitFor()
  await page.getByLabel('Preset npm registry').check()
  await page.getByRole('button', { name: 'Save network' }).click()
  await page.getByText('Saved: calls from now on use these.').waitFor()
  assert.match(readFileSync(configPath, 'utf8'), /presets = \["npm"\]/)
  await page.getByRole('heading', { name: 'Network' }).scrollIntoViewIfNeeded()
  await page.screenshot({ path: join(out, 'network-settings.png') })
  console.log('network e2e: ok')
} catch (e) {
  failed = true
  console.error('network e2e failed:', e, '\n--- warden serve log ---\n' + server.log())
} finally {
  await ctx.close()
  server.proc.kill()
  registry.close()
  second.close()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
