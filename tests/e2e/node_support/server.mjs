// Starts the real `a3s-power serve` binary for the Node client tests (tests/e2e/openai,
// tests/e2e/anthropic): a fresh A3S_POWER_HOME, an ephemeral loopback port, the stories260K model
// (or another), an optional HCL config. `stop()` sends SIGTERM and checks the graceful exit (status 0).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const binDir = process.env.A3S_BIN_DIR;
export const testdata = process.env.A3S_TESTDATA;
assert.ok(binDir, 'A3S_BIN_DIR must be set');
assert.ok(testdata, 'A3S_TESTDATA must be set');
export const model = join(testdata, 'models', 'stories260K.gguf');

// config: HCL text, or a function of the server's home directory giving it; null for none.
// modelPath: the GGUF to serve (stories260K by default).
export async function startServer({ name = 'a3s-node', config = null, modelPath = model } = {}) {
  const home = mkdtempSync(join(tmpdir(), `${name}-`));
  const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--model', modelPath];
  if (config !== null) {
    const file = join(home, 'power.hcl');
    writeFileSync(file, typeof config === 'function' ? config(home) : config);
    args.push('--config', file);
  }
  const proc = spawn(join(binDir, 'a3s-power'), args,
                     { env: { ...process.env, A3S_POWER_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 60000);
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
    createInterface({ input: proc.stdout }).once('line', (l) => { clearTimeout(timer); resolve(l); });
  });
  const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
  assert.ok(m, `unexpected first line: ${line}`);
  return {
    url: m[1],
    home,
    log: () => log,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
        proc.kill('SIGTERM');
        assert.equal(await exited, 0, `graceful shutdown must exit 0:\n${log}`);
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
