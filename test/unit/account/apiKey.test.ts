import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../../kit/sim';
import type { Logger } from '../../../src/api/types';
import { closeApiTransport } from '../../../src/api/client';
import { Emitter } from '../../../src/core/events';
import type { SecretStore } from '../../../src/core/ports';
import { API_KEY_SECRET, cliKeyPaths, findCliKey, keyValidator, normalizeApiKey, validateAndSaveApiKey } from '../../../src/account/apiKey';

class FakeSecrets implements SecretStore {
  readonly map = new Map<string, string>();
  private readonly changed = new Emitter<string>();
  readonly onDidChange = this.changed.event;
  async get(name: string) {
    return this.map.get(name);
  }
  async store(name: string, value: string) {
    this.map.set(name, value);
    this.changed.fire(name);
  }
  async delete(name: string) {
    this.map.delete(name);
    this.changed.fire(name);
  }
}

const lines: string[] = [];
const log: Logger = {
  trace: (m) => lines.push(m),
  debug: (m) => lines.push(m),
  info: (m) => lines.push(m),
  warn: (m) => lines.push(m),
  error: (m) => lines.push(m),
};

let sim: Awaited<ReturnType<typeof startSim>>;
before(async () => {
  sim = await startSim({ seed: 1 });
});
after(async () => {
  await sim.close();
  await closeApiTransport();
});

test('a rejected key saves nothing and says so; a good key is saved after validation', async () => {
  const secrets = new FakeSecrets();
  const bad = await validateAndSaveApiKey('wrong-key-123456', secrets, keyValidator(sim.url, log));
  assert.equal(bad.ok, false);
  assert.equal((bad as { rejected: boolean }).rejected, true);
  assert.match((bad as { message: string }).message, /rejected.*not saved/);
  assert.equal(secrets.map.size, 0);
  const good = await validateAndSaveApiKey('  sim-api-key\n', secrets, keyValidator(sim.url, log));
  assert.equal(good.ok, true);
  assert.equal(secrets.map.get(API_KEY_SECRET), 'sim-api-key');
  assert.ok(!lines.join('\n').includes('wrong-key-123456'), 'the key never reaches the log');
});

test('an unreachable service saves nothing and is not called a bad key', async () => {
  const secrets = new FakeSecrets();
  const r = await validateAndSaveApiKey('sim-api-key', secrets, async () => {
    throw Object.assign(new Error('Could not reach the service. Check your connection and try again.'), { kind: 'network' });
  });
  assert.equal(r.ok, false);
  assert.equal((r as { rejected: boolean }).rejected, false);
  assert.match((r as { message: string }).message, /Could not check/);
  assert.equal(secrets.map.size, 0);
});

test('obviously malformed keys are refused without a request', async () => {
  let calls = 0;
  const v = async () => {
    calls++;
    return { id: 1 };
  };
  const secrets = new FakeSecrets();
  assert.equal((await validateAndSaveApiKey('has space inside', secrets, v)).ok, false);
  assert.equal((await validateAndSaveApiKey('   ', secrets, v)).ok, false);
  assert.equal(calls, 0);
  assert.equal(normalizeApiKey('"abc"'), 'abc');
});

test('CLI key discovery on a temporary HOME: env var first, then XDG file, then the old file', async () => {
  const home = await mkdtemp(join(tmpdir(), 'gpur-home-'));
  try {
    assert.equal(await findCliKey({ env: {}, home }), undefined);
    await writeFile(join(home, '.vast_api_key'), 'old-file-key\n');
    assert.deepEqual(await findCliKey({ env: {}, home }), { key: 'old-file-key', source: join(home, '.vast_api_key') });
    await mkdir(join(home, '.config', 'vastai'), { recursive: true });
    await writeFile(join(home, '.config', 'vastai', 'vast_api_key'), 'xdg-default-key\n');
    assert.equal((await findCliKey({ env: {}, home }))?.key, 'xdg-default-key');
    const xdg = join(home, 'xdg');
    await mkdir(join(xdg, 'vastai'), { recursive: true });
    await writeFile(join(xdg, 'vastai', 'vast_api_key'), 'custom-xdg-key');
    assert.equal((await findCliKey({ env: { XDG_CONFIG_HOME: xdg }, home }))?.key, 'custom-xdg-key');
    const fromEnv = await findCliKey({ env: { VAST_API_KEY: 'env-key-1', XDG_CONFIG_HOME: xdg }, home });
    assert.deepEqual(fromEnv, { key: 'env-key-1', source: 'the VAST_API_KEY environment variable' });
    assert.deepEqual(cliKeyPaths({}, home), [join(home, '.config', 'vastai', 'vast_api_key'), join(home, '.vast_api_key')]);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
