// End to end: the first hour of a new user (issue 36), in Chromium against a
// real `warden serve` started in a project folder with nothing configured.
// The welcome starts the demo in that folder; its ask is answered "always"
// by picking the scope with the mouse and pressing `a`; the rule it made is
// revoked and given back with Undo; the keyboard drives the window (? sheet,
// Alt+N with the folder selected and Tab to the title, Ctrl+K finding a
// session by its first message, Alt+G/Alt+A/Alt+C, /); the Writable roots
// popover closes on an outside click, Esc and a view change; a widening
// confirmation keeps Enter on Cancel. Then Settings switches to a model that
// is a fake speaking the Anthropic Messages wire protocol (this file serves
// it, /v1/models included), adds the npm reference MCP server and trusts it
// without a restart; the model's calls show a risk from what each does
// (ls Low, a workspace write Medium, rm -rf High), the trusted MCP tool runs
// without asking, and the status bar shows the turn's tokens. Screenshots in
// artifacts/e2e/journey-*.png. Run with `make e2e`.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { serve, launch } from './serve.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const everythingBin = join(root, 'testdeps', 'node_modules', '.bin', 'mcp-server-everything')
if (!existsSync(everythingBin)) throw new Error(`server-everything is missing (npm ci --prefix testdeps): ${everythingBin}`)

const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
// Outside /tmp: the cage's /tmp is private, and the demo's commands run in it.
const base = process.env.WARDEN_E2E_TMP ?? join(root, 'artifacts', 'tmp')
mkdirSync(base, { recursive: true })
const tmp = realpathSync(mkdtempSync(join(base, 'journey-')))
const ws = join(tmp, 'shop')
const ws2 = join(tmp, 'parser')
for (const d of [ws, join(ws, 'build'), ws2]) mkdirSync(d, { recursive: true })
writeFileSync(join(ws, 'README.md'), '# shop\n')
writeFileSync(join(ws, 'build', 'app.bin'), 'old build\n')

// The fake model: the user's words pick a tool call; a tool result gets a
// sentence quoting it. Usage is reported like the real API does.
const requests = []
let seq = 0
const plans = [
  { re: /^list/, tool: /^shell/, input: { command: 'ls -la' } },
  { re: /^write/, tool: /^fs.*write/, input: { path: 'notes.txt', content: 'notes\n' } },
  { re: /^clean/, tool: /^shell/, input: { command: 'rm -rf build' } },
  { re: /^echo/, tool: /everything.*echo/, input: { message: 'from the journey' } },
]
function reply(body) {
  const last = (body.messages ?? []).at(-1) ?? { content: [] }
  const parts = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content
  const start = { type: 'message_start', message: { id: `msg_${++seq}`, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1200 + seq, output_tokens: 1, cache_read_input_tokens: 300 } } }
  const text = (t) => [
    start,
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 42 } },
    { type: 'message_stop' },
  ]
  const result = parts.find((p) => p.type === 'tool_result')
  if (result) {
    const got = typeof result.content === 'string' ? result.content : (result.content ?? []).map((c) => c.text ?? '').join(' ')
    return text(`The tool said: ${got.slice(0, 200)}`)
  }
  const said = parts.filter((p) => p.type === 'text').map((p) => p.text).join(' ').trim()
  const plan = plans.find((p) => p.re.test(said))
  const tool = plan && (body.tools ?? []).find((t) => plan.tool.test(t.name))
  if (!plan || !tool) return text(`Nothing to do for "${said}".`)
  return [
    start,
    { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_journey_${seq}`, name: tool.name, input: {} } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(plan.input) } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } },
    { type: 'message_stop' },
  ]
}
const fake = createServer((req, res) => {
  let data = ''
  req.on('data', (c) => (data += c))
  req.on('end', () => {
    if (req.method === 'GET' && req.url.startsWith('/v1/models')) {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({
        data: [
          { type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
          { type: 'model', id: 'claude-opus-4-1', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
        ],
        has_more: false, first_id: 'claude-sonnet-4-5', last_id: 'claude-opus-4-1',
      }))
      return
    }
    if (req.method !== 'POST' || !req.url.startsWith('/v1/messages')) {
      res.writeHead(404).end()
      return
    }
    const body = JSON.parse(data)
    requests.push(body)
    res.writeHead(200, { 'Content-Type': 'text/event-stream' })
    for (const e of reply(body)) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
    res.end()
  })
})
await new Promise((r) => fake.listen(0, '127.0.0.1', r))
const modelURL = `http://127.0.0.1:${fake.address().port}`

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
// Started in the project folder, nothing configured: the demo.
const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--static', join(root, 'frontend', 'dist')], env, { cwd: ws })
const { ctx, userData } = await launch(chromium, { width: 1280, height: 860 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))

const shots = []
const snap = async (name) => {
  const path = join(out, `journey-${name}.png`)
  await page.screenshot({ path })
  shots.push(path)
}
const prompt = page.getByRole('dialog', { name: 'Permission request' })
const composer = page.getByRole('textbox', { name: 'Message' })
const results = []
async function step(name, f) {
  const t0 = Date.now()
  await f()
  results.push(`${name} (${Date.now() - t0} ms)`)
  console.log(`ok  ${name}`)
}
const active = () => page.evaluate(() => {
  const el = document.activeElement
  return { tag: el?.tagName.toLowerCase(), id: el?.id ?? '', label: el?.getAttribute('aria-label') ?? '', type: el?.getAttribute('type') ?? '', start: el?.selectionStart ?? null, end: el?.selectionEnd ?? null, value: el?.value ?? null, text: el?.textContent?.trim() ?? '' }
})
// Focus on nothing that takes text: where the window's keys work.
const blur = () => page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur())
async function idle() {
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: 60000 })
}
async function send(text) {
  await idle()
  await composer.fill(text)
  await composer.press('Enter')
}
async function armed() {
  await prompt.waitFor({ timeout: 60000 })
  await page.waitForSelector('[data-testid="permission-prompt"][data-armed="true"]', { timeout: 10000 })
}
const risk = () => prompt.getByTestId('risk').innerText()

try {
  await page.goto(server.url)

  await step('first start: the welcome says what Warden is, that this is the demo, and starts in the folder Warden was started in', async () => {
    const welcome = page.getByTestId('welcome')
    await welcome.waitFor()
    assert.match(await welcome.innerText(), /cannot act behind your back/)
    assert.match(await page.getByTestId('welcome-demo').innerText(), /This is the demo/)
    assert.equal(await page.getByLabel('Folder the agent works in').inputValue(), ws)
    assert.equal((await active()).id, 'welcome-text', 'the message box has the focus')
    await snap('1-welcome')
  })

  await step('typing anything starts the demo: a session in that folder, titled by the message', async () => {
    await page.keyboard.type('Please show me the demo tour')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Please show me the demo tour' }).waitFor({ timeout: 30000 })
    await page.getByText(/\[DEMO\] This is Warden's built-in demo/).waitFor({ timeout: 30000 })
  })

  await step('the delete asks: High risk, and the working line says it waits for you', async () => {
    await armed()
    assert.match(await prompt.innerText(), /rm -rf build/)
    assert.equal(await risk(), 'High risk')
    assert.match(await page.getByTestId('working').innerText(), /Waiting for you/)
    await snap('2-demo-prompt')
  })

  await step('pick "This workspace" with the mouse, press a: always allowed for the workspace (the key works on a radio button)', async () => {
    await prompt.getByLabel('This workspace').click()
    const a = await active()
    assert.equal(a.type, 'radio', 'focus is on the radio button')
    await page.waitForTimeout(500) // the keys arm after a quiet moment
    await page.keyboard.press('a')
    await prompt.waitFor({ state: 'hidden', timeout: 10000 })
    await page.getByText(/Grant added \(workspace\): shell=rm -rf build/).waitFor({ timeout: 30000 })
    await waitFor('build/ removed', () => !existsSync(join(ws, 'build')))
  })

  await step('the network request is refused in words: code shown as code, no raw backticks, the remedy apart', async () => {
    const detail = page.getByTestId('denial-detail').last()
    await detail.waitFor({ timeout: 30000 })
    const html = await detail.innerHTML()
    assert.match(html, /<code>curl https:\/\/example\.com<\/code>/)
    assert.doesNotMatch(await detail.innerText(), /`/)
    await idle()
    await snap('3-demo-done')
  })

  await step('Grants (Alt+G): the rule says what it lets through; Revoke, then Undo in the note, gives it back', async () => {
    await blur()
    await page.keyboard.press('Alt+g')
    const row = page.getByTestId('grant-row').filter({ hasText: 'rm -rf build' })
    await row.waitFor()
    assert.match(await row.getByTestId('grant-covers').innerText(), /Exactly this command, character for character, in this workspace/)
    await row.getByRole('button', { name: /Revoke/ }).click()
    await row.waitFor({ state: 'detached' })
    const toast = page.getByTestId('undo-toast')
    await toast.waitFor()
    assert.match(await toast.innerText(), /Revoked: exactly this command/)
    await snap('4-revoked-toast')
    await toast.getByRole('button', { name: 'Undo' }).click()
    await page.getByTestId('grant-row').filter({ hasText: 'rm -rf build' }).waitFor({ timeout: 10000 })
    await toast.waitFor({ state: 'detached' })
    await snap('5-undone')
  })

  await step('? shows every key; Esc closes it; Alt+A, Alt+C switch views; / focuses the message box', async () => {
    await blur()
    await page.keyboard.press('?')
    const sheet = page.getByTestId('shortcuts')
    await sheet.waitFor()
    for (const k of ['Ctrl+K', 'Alt+N', 'Alt+G', 'Alt+A', 'Esc']) assert.ok((await sheet.innerText()).includes(k), `the sheet lists ${k}`)
    await snap('6-shortcuts')
    await page.keyboard.press('Escape')
    await sheet.waitFor({ state: 'detached' })
    await page.keyboard.press('Alt+a')
    await page.getByRole('list', { name: 'Audit events' }).waitFor()
    const numbers = await page.getByTestId('audit-row-number').allInnerTexts()
    assert.deepEqual(numbers.map(Number), numbers.map((_, i) => i + 1), 'audit rows are numbered 1, 2, 3 as listed')
    await page.keyboard.press('Alt+c')
    await composer.waitFor()
    await blur()
    await page.keyboard.press('/')
    assert.equal((await active()).label, 'Message')
  })

  await step('Alt+N: the folder is selected (typing replaces it), Tab goes to the title, not to Browse', async () => {
    await page.keyboard.press('Alt+n')
    const folder = page.getByLabel('Workspace folder')
    await folder.waitFor()
    const a = await active()
    assert.equal(a.id, 'new-session-workspace')
    assert.equal(a.value, ws, 'the open session\'s folder')
    assert.equal(a.start, 0)
    assert.equal(a.end, ws.length, 'the whole folder is selected')
    await page.keyboard.type(ws2)
    assert.equal(await folder.inputValue(), ws2, 'typing replaced it')
    await page.keyboard.press('Tab')
    assert.match((await active()).text + (await page.evaluate(() => document.activeElement?.closest('label')?.textContent ?? '')), /Title/)
    await page.keyboard.type('second')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'second' }).waitFor()
    await send('refactor the parser module')
    await page.getByText(/\[DEMO\] This is Warden's built-in demo/).waitFor({ timeout: 30000 })
    await armed()
    await page.keyboard.press('n')
    await prompt.waitFor({ state: 'hidden' })
    await idle()
  })

  await step('Ctrl+K finds a session by its title and by its first message', async () => {
    await page.keyboard.press('Control+k')
    const palette = page.getByTestId('palette')
    await palette.waitFor()
    await page.keyboard.type('demo tour')
    await palette.getByTestId('palette-item').first().waitFor()
    assert.match(await palette.getByTestId('palette-item').first().innerText(), /Please show me the demo tour/)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Please show me the demo tour' }).waitFor()
    await page.keyboard.press('Control+k')
    await page.keyboard.type('parser module')
    const hit = palette.getByTestId('palette-item').first()
    await hit.waitFor()
    assert.match(await hit.innerText(), /second[\s\S]*first message: refactor the parser module/)
    await snap('7-palette')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'second' }).waitFor()
  })

  await step('the Writable roots popover closes on an outside click, on Esc and on a view change', async () => {
    const open = () => page.getByRole('button', { name: /Writable roots/ }).click()
    const pop = page.getByTestId('roots-popover')
    await open()
    await pop.waitFor()
    await snap('8-popover')
    await page.getByRole('log', { name: 'Conversation' }).click({ position: { x: 20, y: 20 } })
    await pop.waitFor({ state: 'detached' })
    await open()
    await pop.waitFor()
    await page.keyboard.press('Escape')
    await pop.waitFor({ state: 'detached' })
    await open()
    await pop.waitFor()
    await page.keyboard.press('Alt+g')
    await pop.waitFor({ state: 'detached' })
    await page.keyboard.press('Alt+c')
  })

  await step('Full access asks first, and Enter there is Cancel', async () => {
    await page.getByRole('combobox', { name: 'Sandbox' }).selectOption('danger-full-access')
    const confirm = page.getByRole('alertdialog', { name: 'Confirm' })
    await confirm.waitFor()
    assert.equal((await active()).text, 'Cancel')
    await page.keyboard.press('Enter')
    await confirm.waitFor({ state: 'detached' })
    assert.equal(await page.getByRole('combobox', { name: 'Sandbox' }).inputValue(), 'workspace-write')
  })

  await step('Settings: a model with a key lists its models; saving switches to it at once', async () => {
    await page.keyboard.press('Alt+,')
    await page.getByLabel('Provider').selectOption('anthropic')
    assert.equal(await page.locator('#set-model').inputValue(), 'claude-sonnet-4-5', 'the provider\'s default model')
    await page.locator('#set-base-url').fill(modelURL)
    await page.locator('#set-api-key').fill('sk-ant-journey')
    await page.getByLabel('Available models').waitFor({ timeout: 20000 })
    assert.ok((await page.getByLabel('Available models').innerText()).includes('Claude Opus 4.1'))
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByTestId('model-saved').waitFor({ timeout: 20000 })
    assert.match(await page.getByTestId('active-model').innerText(), /anthropic:claude-sonnet-4-5/)
  })

  await step('Settings: add the npm reference MCP server and trust it in this workspace, without a restart', async () => {
    await page.getByTestId('mcp-add').click()
    await page.getByTestId('mcp-name').fill('everything')
    await page.getByTestId('mcp-command').fill(everythingBin)
    await page.getByTestId('mcp-args').fill('stdio')
    await page.getByTestId('mcp-save').click()
    const row = page.getByTestId('mcp-server').filter({ hasText: 'everything' })
    await row.waitFor({ timeout: 30000 })
    const cfg = readFileSync(join(tmp, 'config', 'warden', 'config.toml'), 'utf8')
    assert.match(cfg, /\[mcp\.servers\.everything\]\ncommand = ".*mcp-server-everything"\nargs = \["stdio"\]/)
    await row.getByTestId('mcp-trust-everything').click()
    await row.getByTestId('mcp-untrust-everything').waitFor({ timeout: 60000 })
    assert.match(await row.getByTestId('mcp-trust').innerText(), /Trusted/)
    assert.match(await row.getByTestId('mcp-state').innerText(), /Running/)
    await snap('9-mcp-trusted')
  })

  await step('risk follows what a call does: ls is Low, a workspace write Medium, rm -rf High', async () => {
    await page.keyboard.press('Alt+c')
    await page.getByRole('combobox', { name: 'Approval policy' }).selectOption('always')
    const cases = [
      ['list the files', 'Low risk', 'y'],
      ['write the notes', 'Medium risk', 'y'],
      ['clean the build', 'High risk', 'n'],
    ]
    for (const [say, want, key] of cases) {
      await send(say)
      await armed()
      assert.equal(await risk(), want, `${say}: ${want}`)
      if (want === 'Low risk') await snap('10-low-risk')
      await page.keyboard.press(key)
      await prompt.waitFor({ state: 'hidden' })
    }
    await idle()
    await waitFor('notes.txt written', () => existsSync(join(ws2, 'notes.txt')))
  })

  await step('the trusted MCP tool runs without asking; the status bar shows the turn\'s tokens', async () => {
    await page.getByRole('combobox', { name: 'Approval policy' }).selectOption('on-request')
    await send('echo something')
    await page.getByText(/The tool said: .*from the journey/).waitFor({ timeout: 60000 })
    assert.equal(await prompt.count(), 0, 'no prompt for the trusted server\'s read-only tool')
    const usage = page.getByTestId('usage')
    await usage.waitFor()
    assert.match(await usage.innerText(), /^Turn: [\d.k]+ in · \d+ out · context [\d.k]+$/)
    await idle()
    await snap('11-mcp-call-tokens')
  })

  assert.deepEqual(errors, [], 'no page errors')
  writeFileSync(join(out, 'journey.txt'), results.join('\n') + '\n')
  console.log(`e2e journey: ${results.length} steps passed; screenshots:\n  ${shots.join('\n  ')}`)
} catch (e) {
  await page.screenshot({ path: join(out, 'journey-failure.png') }).catch(() => {})
  console.error('warden serve log:\n' + server.log())
  throw e
} finally {
  await ctx.close()
  server.proc.kill('SIGTERM')
  fake.close()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}

async function waitFor(what, f, ms = 30000) {
  const end = Date.now() + ms
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
