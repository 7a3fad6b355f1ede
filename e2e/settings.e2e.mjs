// End to end: the Settings screen in Chromium against a real `warden serve`
// (settings API, issue 9). The model provider it tests against is a tiny
// HTTP server in this script speaking OpenAI's GET /v1/models, so nothing
// leaves the machine. The user's config lives in a temporary
// XDG_CONFIG_HOME. Screenshots go to artifacts/e2e/settings-*.png.
//
// Needs bin/warden and frontend/dist: `make cli frontend && node e2e/settings.e2e.mjs`.
import assert from 'node:assert/strict'
import { serve, launch } from './serve.mjs'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
const tmp = mkdtempSync(join(tmpdir(), 'warden-e2e-settings-'))
const workspace = join(tmp, 'ws')
mkdirSync(workspace, { recursive: true })
writeFileSync(join(workspace, 'README.md'), '# settings e2e workspace\n')
const configHome = join(tmp, 'config')
const configPath = join(configHome, 'warden', 'config.toml')

// The provider: GET …/models with the right bearer key lists two models;
// any other key gets OpenAI's 401 body.
const goodKey = 'sk-e2e-good-key-7Q3z'
const seen = []
function startProvider() {
  const srv = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, auth: req.headers.authorization ?? '' })
    if (req.method !== 'GET' || !/\/models\/?(\?.*)?$/.test(req.url ?? '')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }))
    }
    if (req.headers.authorization !== `Bearer ${goodKey}`) {
      res.writeHead(401, { 'content-type': 'application/json' })
      return res.end(
        JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } }),
      )
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        object: 'list',
        data: [
          { id: 'gpt-e2e-mini', object: 'model', created: 1700000000, owned_by: 'e2e' },
          { id: 'gpt-e2e-large', object: 'model', created: 1700000001, owned_by: 'e2e' },
        ],
      }),
    )
  })
  return new Promise((res) => srv.listen(0, '127.0.0.1', () => res(srv)))
}

function startServer(config = configHome, name = 'warden') {
  const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
  const args = ['serve', '--addr', '127.0.0.1:0', '--db', join(tmp, `${name}.db`), '--static', join(root, 'frontend', 'dist')]
  // No key may come from the environment: every key in this run is typed.
  // MCP logs go under XDG_STATE_HOME: keep them in the temporary folder too.
  const env = {
    ...process.env,
    XDG_DATA_HOME: join(tmp, `${name}-data`),
    XDG_STATE_HOME: join(tmp, `${name}-state`),
    XDG_CONFIG_HOME: config,
  }
  delete env.OPENAI_API_KEY
  delete env.ANTHROPIC_API_KEY
  return serve(bin, args, env)
}

const provider = await startProvider()
const providerURL = `http://127.0.0.1:${provider.address().port}`
const server = await startServer()
const { ctx, userData } = await launch(chromium, { width: 1280, height: 900 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))

const snap = (name) => page.screenshot({ path: join(out, `settings-${name}.png`) })
const results = []
async function step(name, f) {
  const t0 = Date.now()
  await f()
  results.push(`${name} (${Date.now() - t0} ms)`)
  console.log(`ok  ${name}`)
}
const settings = page.getByRole('region', { name: 'Settings' })
const model = page.getByRole('region', { name: 'Model' })
const defaults = page.getByRole('region', { name: 'Default axes' })
const statusBar = page.getByRole('contentinfo')
const result = page.getByTestId('connection-result')
async function openSettings() {
  await page.getByRole('tab', { name: 'Settings' }).click()
  await model.getByLabel('Provider').waitFor()
}

try {
  await page.goto(server.url)
  await page.getByText('No sessions yet').waitFor()

  await step('Settings opens with the config path and the cage line', async () => {
    await openSettings()
    assert.equal(await page.getByTestId('config-path').innerText(), configPath)
    assert.match(await page.getByTestId('cage-status').innerText(), /^(Available|Not available: .+)/)
    await snap('open')
  })

  await step('MCP: the empty state names the config file', async () => {
    const empty = page.getByTestId('mcp-empty')
    await empty.waitFor()
    assert.match(await empty.innerText(), /No MCP servers yet/)
    assert.ok((await empty.innerText()).includes(configPath), 'the empty state names the config file')
    await page.getByRole('button', { name: 'Refresh MCP servers' }).click()
    await empty.waitFor()
  })

  await step('default axes: Full access asks; Always + Read only are saved and survive a reload', async () => {
    await defaults.getByLabel('Default approval policy').selectOption('always')
    await defaults.getByLabel('Default sandbox').selectOption('danger-full-access')
    const dlg = page.getByRole('alertdialog', { name: 'Confirm' })
    await dlg.waitFor()
    await snap('full-access-confirm')
    await dlg.getByRole('button', { name: 'Cancel' }).click()
    assert.equal(await defaults.getByLabel('Default sandbox').inputValue(), 'workspace-write')
    await defaults.getByLabel('Default sandbox').selectOption('read-only')
    await defaults.getByRole('button', { name: 'Save defaults' }).click()
    await page.getByTestId('defaults-saved').waitFor()
    assert.ok(existsSync(configPath), 'SaveDefaults wrote the config file')
    assert.match(readFileSync(configPath, 'utf8'), /always/)
    await page.reload()
    await openSettings()
    assert.equal(await defaults.getByLabel('Default approval policy').inputValue(), 'always')
    assert.equal(await defaults.getByLabel('Default sandbox').inputValue(), 'read-only')
  })

  await step('a new session starts with the saved defaults', async () => {
    await page.getByRole('button', { name: 'New session' }).click()
    await page.getByLabel('Workspace folder').fill(workspace)
    await page.getByLabel('Title (optional)').fill('defaults check')
    await page.getByRole('button', { name: 'Create' }).click()
    await statusBar.getByLabel('Approval policy', { exact: true }).waitFor()
    assert.equal(await statusBar.getByLabel('Approval policy', { exact: true }).inputValue(), 'always')
    assert.equal(await statusBar.getByLabel('Sandbox', { exact: true }).inputValue(), 'read-only')
  })

  await step('Test connection: a refused key, then a good one', async () => {
    await openSettings()
    await model.getByLabel('Provider').selectOption('openai')
    const base = model.getByLabel('Base URL')
    // OpenAI-style base URLs carry /v1 (https://api.openai.com/v1).
    const placeholder = (await base.getAttribute('placeholder')) ?? ''
    await base.fill(placeholder.endsWith('/v1') ? `${providerURL}/v1` : providerURL)
    await model.getByLabel('Model', { exact: true }).fill('gpt-e2e-mini')
    await model.getByLabel('API key').fill('sk-e2e-wrong-key')
    await model.getByRole('button', { name: 'Test connection' }).click()
    await result.waitFor()
    assert.match(await result.getAttribute('class'), /\bbad\b/)
    assert.match(await result.innerText(), /refused|401/i)
    await snap('connection-refused')
    await model.getByLabel('API key').fill(goodKey)
    await model.getByRole('button', { name: 'Test connection' }).click()
    await page.waitForFunction(() => /\bok\b/.test(document.querySelector('[data-testid="connection-result"]')?.className ?? ''))
    assert.match(await result.innerText(), /Connected/)
    assert.match(await result.innerText(), /\(\d+ ms\)/)
    assert.ok(seen.some((r) => r.auth === `Bearer ${goodKey}`), 'the provider saw the typed key')
    await snap('connection-ok')
  })

  await step('Load models fills the list; Save switches the running model', async () => {
    await model.getByRole('button', { name: 'Load models' }).click()
    const pick = model.getByLabel('Available models')
    await pick.waitFor()
    const ids = await pick.locator('option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean))
    assert.deepEqual(ids.sort(), ['gpt-e2e-large', 'gpt-e2e-mini'])
    await pick.selectOption('gpt-e2e-large')
    assert.equal(await model.getByLabel('Model', { exact: true }).inputValue(), 'gpt-e2e-large')
    await model.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('model-saved').waitFor()
    await page.waitForFunction(() => /gpt-e2e-large/.test(document.querySelector('[data-testid="model"]')?.textContent ?? ''))
    assert.match(await page.getByTestId('active-model').innerText(), /gpt-e2e-large/)
    assert.equal(await model.getByLabel('API key').inputValue(), '', 'the key field is empty after a save')
    assert.equal(await page.getByTestId('key-hint').innerText(), 'Key set (…7Q3z) from config')
    await snap('model-saved')
  })

  await step('the key never comes back to the page', async () => {
    const body = await page.evaluate(async () => {
      const r = await fetch('/api/GetSettings', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
      return r.text()
    })
    assert.ok(!body.includes(goodKey), 'GetSettings does not carry the key')
    assert.ok(!(await page.content()).includes(goodKey), 'the page does not hold the key')
  })

  await step('a bad base URL is refused in words and nothing changes', async () => {
    await model.getByLabel('Base URL').fill('ftp://nope')
    await model.getByRole('button', { name: 'Save' }).click()
    const err = page.getByTestId('model-save-error')
    await err.waitFor()
    assert.match(await err.innerText(), /^Not saved: /)
    assert.match(await statusBar.getByTestId('model').innerText(), /gpt-e2e-large/)
    await snap('save-refused')
  })

  await step('Remove key takes it out of the file', async () => {
    await page.reload()
    await openSettings()
    await model.getByRole('button', { name: 'Remove key' }).click()
    await model.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('model-saved').waitFor()
    assert.match(await page.getByTestId('key-hint').innerText(), /^No key set/)
    assert.ok(!readFileSync(configPath, 'utf8').includes(goodKey), 'the key is gone from config.toml')
  })

  await step('themes, 900×600, keyboard', async () => {
    await page.emulateMedia({ colorScheme: 'dark' })
    await snap('dark')
    await page.setViewportSize({ width: 900, height: 600 })
    await snap('900x600')
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false, 'no overflow at 900×600')
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.getByRole('tab', { name: 'Settings' }).focus()
    const reached = new Set()
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab')
      reached.add(
        await page.evaluate(() => {
          const a = document.activeElement
          return a?.getAttribute('aria-label') || a?.labels?.[0]?.textContent?.trim() || a?.textContent?.trim() || ''
        }),
      )
    }
    for (const want of ['Provider', 'Model', 'Load models', 'Base URL', 'API key', 'Test connection', 'Default approval policy', 'Default sandbox']) {
      assert.ok(reached.has(want), `Tab reaches ${want} (reached: ${[...reached].join(' | ')})`)
    }
  })

  await step('MCP: configured servers are listed with their state, trust and log', async () => {
    // A second serve whose config.toml names two real stdio servers: the
    // filesystem reference server and one that fails at start.
    const cfg = join(tmp, 'config-mcp')
    mkdirSync(join(cfg, 'warden'), { recursive: true })
    const fsBin = join(root, 'testdeps', 'node_modules', '.bin', 'mcp-server-filesystem')
    writeFileSync(
      join(cfg, 'warden', 'config.toml'),
      [
        '[mcp.servers.files]',
        `command = ${JSON.stringify(fsBin)}`,
        `args = [${JSON.stringify(workspace)}]`,
        '',
        '[mcp.servers.noisy]',
        'command = "sh"',
        'args = ["-c", "echo first line from noisy >&2; exit 3"]',
        '',
      ].join('\n'),
    )
    const second = await startServer(cfg, 'mcp')
    const p2 = await ctx.newPage()
    p2.on('pageerror', (e) => errors.push(String(e)))
    try {
      await p2.goto(second.url)
      await p2.getByRole('tab', { name: 'Settings' }).click()
      const list = p2.getByRole('list', { name: 'MCP servers' })
      await list.waitFor()
      const rows = p2.getByTestId('mcp-server')
      assert.equal(await rows.count(), 2)
      const files = rows.filter({ hasText: 'files' })
      assert.match(await files.innerText(), /mcp-server-filesystem/)
      assert.match(await files.getByTestId('mcp-trust').innerText(), /Not trusted|Trusted/)
      assert.match(await files.getByTestId('mcp-state').innerText(), /\S/)
      const noisy = rows.filter({ hasText: 'noisy' })
      assert.match(await noisy.innerText(), /sh -c/)
      await noisy.getByRole('button', { name: 'Logs of noisy' }).click()
      const log = p2.getByRole('region', { name: 'Log of noisy' })
      await log.getByTestId('log-lines').waitFor()
      assert.match(await log.getByTestId('log-lines').innerText(), /first line from noisy/)
      assert.ok((await log.innerText()).includes(join(tmp, 'mcp-state')), 'the log lives under XDG_STATE_HOME')
      await log.getByRole('button', { name: "Refresh noisy's log" }).click()
      await log.getByTestId('log-lines').waitFor()
      await p2.getByRole('button', { name: 'Refresh MCP servers' }).click()
      await p2.screenshot({ path: join(out, 'settings-mcp.png'), fullPage: true })
    } finally {
      await p2.close()
      second.proc.kill('SIGTERM')
    }
  })

  assert.ok(await settings.isVisible())
  assert.deepEqual(errors, [], 'no page errors')
  writeFileSync(join(out, 'settings.txt'), results.join('\n') + '\n')
  console.log(`settings e2e: ${results.length} steps passed; screenshots in ${out}`)
} catch (e) {
  await page.screenshot({ path: join(out, 'settings-failure.png') }).catch(() => {})
  console.error('warden serve log:\n' + server.log())
  console.error('provider requests:', JSON.stringify(seen))
  throw e
} finally {
  await ctx.close()
  server.proc.kill('SIGTERM')
  provider.close()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
