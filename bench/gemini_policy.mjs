// Gemini CLI's own policy engine, answering JSON lines on stdin for the
// Warden benchmark (bench/cmd/wardenbench). It is set up the way the gemini
// CLI sets itself up with no flags and no settings: the default policy TOML
// files, approval mode "default", interactive, no OS sandbox (the
// NoopSandboxManager that createSandboxManager returns when sandboxing is
// off) and a trusted workspace folder.
//
// Requests:  {"op":"decide","commands":[...]}        -> {"decisions":["allow"|"ask_user"|"deny",...]}
//            {"op":"bench","commands":[...],"rounds":N} -> {"rates":[decisions/s per pass]}
import readline from 'node:readline';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';

// The gemini CLI patches the console so debug output shows only in debug
// mode; do the same, and keep stdout for the protocol.
console.debug = () => {};
console.log = console.info = (...a) => process.stderr.write(a.join(' ') + '\n');

// No user or system policies of whoever runs the benchmark: only defaults.
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wardenbench-gemini-home-'));
process.env.HOME = home;
process.env.GEMINI_CLI_HOME = home;

// ESM ignores NODE_PATH: resolve the package from the peers folder.
const peers = process.env.WARDENBENCH_PEERS || path.join(path.dirname(fileURLToPath(import.meta.url)), 'peers');
const entry = createRequire(path.join(peers, 'package.json')).resolve('@google/gemini-cli-core');
const core = await import(pathToFileURL(entry).href);
const { PolicyEngine, createPolicyEngineConfig, ApprovalMode, NoopSandboxManager, initializeShellParsers } = core;

const workspace = process.env.WARDENBENCH_WS || '/work/ws';
const cfg = await createPolicyEngineConfig({}, ApprovalMode.DEFAULT, undefined, true);
const engine = new PolicyEngine({
  ...cfg,
  approvalMode: ApprovalMode.DEFAULT,
  sandboxManager: new NoopSandboxManager({ workspace }),
  isTrustedFolder: () => true,
});
await initializeShellParsers();

const check = async (command) => {
  const r = await engine.check({ name: 'run_shell_command', args: { command } }, undefined);
  return r.decision;
};

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let out;
  try {
    const req = JSON.parse(line);
    if (req.op === 'decide') {
      const decisions = [];
      for (const c of req.commands) decisions.push(String(await check(c)));
      out = { decisions };
    } else if (req.op === 'bench') {
      for (const c of req.commands) await check(c); // warm-up
      const rates = [];
      // At least 3 passes; then stop at the round count or the time budget.
      const deadline = Date.now() + (req.budget_ms || Infinity);
      for (let i = 0; i < req.rounds && (i < 3 || Date.now() < deadline); i++) {
        const t0 = process.hrtime.bigint();
        for (const c of req.commands) await check(c);
        const ns = Number(process.hrtime.bigint() - t0);
        rates.push(req.commands.length / (ns / 1e9));
      }
      out = { rates };
    } else {
      out = { error: `unknown op ${req.op}` };
    }
  } catch (e) {
    out = { error: String(e && e.stack ? e.stack : e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
fs.rmSync(home, { recursive: true, force: true });
