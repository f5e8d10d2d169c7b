// The API key's one owner (apiKeyOwner: checked, stored, then the connection) and the CLI key import.
import '../../../bench/vscodeStub.cjs';
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
import { apiKeyOwner, cliKeyPaths, findCliKey, normalizeApiKey, type KeyValidator } from '../../../src/account/apiKey';
import { ConnectionState } from '../../../src/core/connection';
import { apiClientFactory, keyCheck } from '../../../src/app/apiAccess';

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

/** The owner over a fresh store and connection, checking keys with the simulator (or `check`). */
function owner(check?: KeyValidator) {
  const secrets = new FakeSecrets();
  const conn = new ConnectionState({ baseUrl: sim.url });
  const clients = apiClientFactory({ log, isDemo: () => false, readProxy: () => null });
  return { secrets, conn, keys: apiKeyOwner(secrets, conn, check ?? keyCheck(conn, clients)) };
}

test('a rejected key saves nothing and says so; a good key is stored, then signs the connection in', async () => {
  const { secrets, conn, keys } = owner();
  const bad = await keys.save('wrong-key-123456');
  assert.equal(bad.ok, false);
  assert.equal((bad as { rejected: boolean }).rejected, true);
  assert.match((bad as { message: string }).message, /rejected.*not saved/);
  assert.equal(secrets.map.size, 0);
  assert.equal(conn.token(), undefined);
  const good = await keys.save('  sim-api-key\n');
  assert.equal(good.ok, true);
  assert.equal(secrets.map.get('apiKey'), 'sim-api-key');
  assert.equal(conn.token(), 'sim-api-key');
  assert.ok(!lines.join('\n').includes('wrong-key-123456'), 'the key never reaches the log');
  await keys.clear();
  assert.equal(secrets.map.size, 0);
  assert.equal(conn.token(), undefined);
});

test('reload: the key another window stored reaches this connection; other secrets leave it alone', async () => {
  const { secrets, conn, keys } = owner();
  secrets.map.set('apiKey', 'from-another-window');
  await keys.reload('sessionKey');
  assert.equal(conn.token(), undefined);
  await keys.reload('apiKey');
  assert.equal(conn.token(), 'from-another-window');
  secrets.map.delete('apiKey');
  await keys.reload();
  assert.equal(conn.token(), undefined);
});

test('an unreachable service saves nothing and is not called a bad key', async () => {
  const { secrets, conn, keys } = owner(async () => {
    throw Object.assign(new Error('Could not reach the service. Check your connection and try again.'), { kind: 'network' });
  });
  const r = await keys.save('sim-api-key');
  assert.equal(r.ok, false);
  assert.equal((r as { rejected: boolean }).rejected, false);
  assert.match((r as { message: string }).message, /Could not check/);
  assert.equal(secrets.map.size, 0);
  assert.equal(conn.token(), undefined);
});

test('obviously malformed keys are refused without a request', async () => {
  let calls = 0;
  const { keys } = owner(async () => {
    calls++;
    return { id: 1 };
  });
  assert.equal((await keys.save('has space inside')).ok, false);
  assert.equal((await keys.save('   ')).ok, false);
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
