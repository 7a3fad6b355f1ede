// Re-shoots docs/screenshot.png, the README's picture: a real session of the
// built-in demo in Chromium against `warden serve`, nothing staged. Warden
// is started in a fresh project folder (~/warden-demo/shop, removed
// afterwards; it must not exist before) with its own config and data, the
// welcome's box gets a first message, the demo's ask for `rm -rf build` is
// answered "Allow once", and the picture is taken when the demo has ended,
// with no dialog over the chat. Run with `make screenshot` (it builds the
// frontend and bin/warden first).
import { mkdirSync, mkdtempSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { serve, launch } from '../e2e/serve.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'frontend', 'package.json'))
const { chromium } = require('playwright-core')

const outFile = process.env.WARDEN_SCREENSHOT ?? join(root, 'docs', 'screenshot.png')
const project = join(homedir(), 'warden-demo', 'shop')
if (existsSync(project)) throw new Error(`${project} exists: move it away first (this script makes it fresh and removes it)`)
const state = mkdtempSync(join(tmpdir(), 'warden-screenshot-'))
// A small project, so the demo's listing has something in it.
mkdirSync(join(project, 'src'), { recursive: true })
mkdirSync(join(project, 'build'), { recursive: true })
writeFileSync(join(project, 'README.md'), '# shop\n\nA small web shop.\n')
writeFileSync(join(project, 'package.json'), '{ "name": "shop", "private": true }\n')
writeFileSync(join(project, 'src', 'cart.js'), 'export const total = (items) => items.reduce((s, i) => s + i.price, 0)\n')
writeFileSync(join(project, 'build', 'bundle.js'), '// built\n')

const env = {
  ...process.env,
  XDG_DATA_HOME: join(state, 'data'),
  XDG_CONFIG_HOME: join(state, 'config'),
  XDG_STATE_HOME: join(state, 'state'),
  ANTHROPIC_API_KEY: '',
  OPENAI_API_KEY: '',
  WARDEN_DB: '',
}
const bin = process.env.WARDEN_BIN ?? join(root, 'bin', 'warden')
const server = await serve(bin, ['serve', '--addr', '127.0.0.1:0', '--static', join(root, 'frontend', 'dist')], env, { cwd: project })
const { ctx, userData } = await launch(chromium, { width: 1280, height: 800 })
const page = ctx.pages()[0] ?? (await ctx.newPage())
try {
  await page.goto(server.url)
  await page.getByTestId('welcome').waitFor()
  await page.getByLabel('Your first message').fill('Show me around this project')
  await page.keyboard.press('Enter')
  const prompt = page.getByRole('dialog', { name: 'Permission request' })
  await prompt.waitFor({ timeout: 60000 })
  await prompt.getByRole('button', { name: 'Allow once' }).click()
  await prompt.waitFor({ state: 'hidden' })
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: 60000 })
  await page.getByText(/That's the tour/).waitFor({ timeout: 60000 })
  // The end of the conversation in view, the mouse out of the way.
  await page.mouse.move(1270, 790)
  await page.waitForTimeout(500)
  await page.screenshot({ path: outFile })
  console.log(`screenshot: ${outFile}`)
} finally {
  await ctx.close()
  server.proc.kill('SIGTERM')
  rmSync(userData, { recursive: true, force: true })
  rmSync(state, { recursive: true, force: true })
  rmSync(join(homedir(), 'warden-demo'), { recursive: true, force: true })
}
