// End to end: checkpoints in the chat. The built frontend in Chromium
// against a real `warden serve`; `!` commands run through the real gate and
// cage in a real workspace. A call's change set shows under its tool item,
// "Undo this call" puts the file back on disk, and a caged command no human
// allowed that deletes more than five files shows the warning whose Undo
// restores them. Screenshots under artifacts/e2e/checkpoint-*.png.
import assert from 'node:assert/strict'
import { serve, launch } from './serve.mjs'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const out = join(root, 'artifacts', 'e2e')
mkdirSync(out, { recursive: true })
const tmp = mkdtempSync(join(tmpdir(), 'warden-e2e-cp-'))
const workspace = join(tmp, 'ws')
mkdirSync(join(workspace, 'src'), { recursive: true })
mkdirSync(join(workspace, 'data'), { recursive: true })
const files = {
  'src/main.go': 'package main\n\nfunc main() {\n\tprintln("hello")\n}\n',
  'src/util.go': 'package main\n\nfunc add(a, b int) int { return a + b }\n',
  'README.md': '# checkpoint e2e\n',
}
for (let i = 0; i < 7; i++) files[`data/row${i}.csv`] = `id,value\n${i},${i * i}\n`
for (const [p, body] of Object.entries(files)) writeFileSync(join(workspace, p), body)

const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--db', join(tmp, 'warden.db'), '--static', join(root, 'frontend', 'dist')], {
  ...process.env,
  XDG_DATA_HOME: join(tmp, 'data-home'),
  XDG_CONFIG_HOME: join(tmp, 'config'),
})
const { ctx, userData } = await launch(chromium, { width: 1280, height: 860 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
const errors = []
page.on('pageerror', (e) => errors.push(String(e)))
const composer = page.getByRole('textbox', { name: 'Message' })

async function send(text) {
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: 20000 })
  await composer.fill(text)
  await composer.press('Enter')
}
async function waitFor(what, f, ms = 15000) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (f()) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}
// A restore may replace a file (unlink, then write): a poll that lands in
// between sees no file, which is "not yet", not a failure.
function readNow(path) {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    if (e.code === 'ENOENT') return null
    throw e
  }
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
  await page.getByRole('button', { name: 'New session' }).click()
  await page.getByLabel('Workspace folder').fill(workspace)
  await page.getByLabel('Title (optional)').fill('checkpoints')
  await page.getByRole('button', { name: 'Create' }).click()
  await page.getByRole('heading', { name: 'checkpoints' }).waitFor()

  await step('a caged edit shows its change set under the tool item', async () => {
    // A Python one-liner the classifier cannot prove: the cage runs it
    // without asking, and the checkpoint records what it did.
    await send(`!python3 -c "import os; os.remove('src/util.go'); open('src/main.go','a').write('// edited\\n')"`)
    const set = page.getByTestId('change-set').first()
    await set.waitFor({ timeout: 20000 })
    const summary = await set.getByTestId('change-summary').innerText()
    assert.match(summary, /^2 files changed: src\/main\.go \(\+1 −0\), src\/util\.go \(deleted, \+0 −3\)/)
    assert.ok(!existsSync(join(workspace, 'src', 'util.go')), 'the command ran')
    await set.locator('summary').first().click()
    await set.locator('.files summary', { hasText: 'src/main.go' }).click()
    await set.getByTestId('diff').first().waitFor()
    assert.match(await set.getByTestId('diff').first().innerText(), /\+\/\/ edited/)
    await page.screenshot({ path: join(out, 'checkpoint-1-change-set.png') })
  })

  await step('"Undo this call" puts the files back on disk', async () => {
    await page.getByTestId('undo-call').first().click()
    await waitFor('src/util.go back on disk', () => existsSync(join(workspace, 'src', 'util.go')))
    assert.equal(readFileSync(join(workspace, 'src', 'util.go'), 'utf8'), files['src/util.go'])
    await waitFor('src/main.go restored', () => readNow(join(workspace, 'src', 'main.go')) === files['src/main.go'])
    await page.getByText(/Undone \(undo-/).first().waitFor()
    await page.screenshot({ path: join(out, 'checkpoint-2-undone.png') })
  })

  await step('a destructive caged call no human allowed warns; its Undo restores', async () => {
    await send(`!python3 -c "import shutil; shutil.rmtree('data')"`)
    const warning = page.getByTestId('destruction-warning')
    await warning.waitFor({ timeout: 20000 })
    assert.match(await warning.innerText(), /deleted 7 tracked files/)
    assert.ok(!existsSync(join(workspace, 'data')))
    await page.screenshot({ path: join(out, 'checkpoint-3-warning.png') })
    await warning.getByTestId('warning-undo').click()
    await waitFor('data/ back on disk', () => existsSync(join(workspace, 'data', 'row6.csv')))
    for (let i = 0; i < 7; i++) assert.equal(readFileSync(join(workspace, 'data', `row${i}.csv`), 'utf8'), files[`data/row${i}.csv`])
  })

  await step('"Restore to here" on the first message puts the workspace back as it was then', async () => {
    const sets = await page.getByTestId('change-set').count()
    await send(`!python3 -c "open('README.md','w').write('rewritten\\n'); open('notes.txt','w').write('new\\n')"`)
    await page.getByTestId('change-set').nth(sets).waitFor({ timeout: 20000 })
    await waitFor('README.md rewritten', () => readNow(join(workspace, 'README.md')) === 'rewritten\n')
    await page.getByTestId('restore-here').first().click()
    await page.getByRole('alertdialog', { name: 'Confirm' }).getByRole('button', { name: 'Restore' }).click()
    await waitFor('README.md restored', () => readNow(join(workspace, 'README.md')) === files['README.md'])
    assert.ok(!existsSync(join(workspace, 'notes.txt')), 'a file made after the message is gone')
    for (const [p, body] of Object.entries(files)) assert.equal(readFileSync(join(workspace, p), 'utf8'), body, p)
    await page.getByText('Restore:').first().waitFor()
    await page.screenshot({ path: join(out, 'checkpoint-4-restored.png') })
  })

  assert.deepEqual(errors, [], 'no page errors')
  console.log(`checkpoint e2e: ${results.length} steps passed`)
} catch (e) {
  await page.screenshot({ path: join(out, 'checkpoint-failure.png') }).catch(() => {})
  console.error(server.log())
  throw e
} finally {
  await ctx.close()
  server.proc.kill()
  rmSync(userData, { recursive: true, force: true })
  rmSync(tmp, { recursive: true, force: true })
}
