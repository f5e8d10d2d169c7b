// Demo mode's simulator cannot be used by another local process: its key is random per demo and
// taken only from the Authorization header, a body counts only as JSON with a JSON content type,
// and of an onstart only the idle guard runs, as the demo's own copy of the watchdog.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { demoSimOptions, randomKey, simConfig, startSimulator, type RunningSim } from '../../../src/sim';
import { instanceHome } from '../../../src/sim/sandbox';
import { GATED_NOTE, guardLaunchEnv } from '../../../src/sim/guardOnly';
import { composeOnstart, minifiedWatchdog, resolveGuardPlan } from '../../../src/guard/plan';
import { waitFor } from '../../kit/wait';

const key = randomKey();
let sim: RunningSim | undefined;
const started = async (): Promise<RunningSim> =>
  (sim ??= await startSimulator({
    ...demoSimOptions({ apiKey: key, guardScript: minifiedWatchdog(), guardTick: 1 }),
    bootSeconds: 1,
    invisibleSeconds: 0,
    rateLimits: 'off',
    ssh: false,
    instances: 0,
  }));
after(async () => sim?.close());

const call = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
  const s = await started();
  const r = await fetch(`${s.url}${path}`, init);
  return { status: r.status, json: (await r.json().catch(() => undefined)) as Record<string, unknown> | undefined };
};
const bearer = (k: string) => ({ Authorization: `Bearer ${k}` });

test("each demo has its own random key: never the simulator's well-known keys", () => {
  const a = simConfig(demoSimOptions({ apiKey: randomKey(), guardScript: '', guardTick: 10 }));
  const b = simConfig(demoSimOptions({ apiKey: randomKey(), guardScript: '', guardTick: 10 }));
  assert.notEqual(a.apiKey, b.apiKey);
  assert.match(a.apiKey, /^[0-9a-f]{64}$/);
  assert.notEqual(a.readOnlyKey, 'sim-read-only-key', 'nor the well-known read-only key');
  assert.notEqual(a.readOnlyKey, b.readOnlyKey);
  assert.equal(simConfig({ demoLock: true }).apiKey === 'sim-api-key', false, 'a locked simulator without a key gets a random one');
});

test('another local process without the key is refused: no key, a guessed key, the well-known keys, the key in the URL', async () => {
  assert.equal((await call('/api/v0/users/current/', { headers: bearer(key) })).status, 200, 'the demo itself gets in');
  for (const headers of [{}, bearer('sim-api-key'), bearer('sim-read-only-key'), bearer(randomKey())]) {
    assert.equal((await call('/api/v0/users/current/', { headers })).status, 401, JSON.stringify(headers));
    const list = await call('/api/v1/instances/', { headers });
    assert.equal(list.json?.error, 'auth_error', `the list: ${JSON.stringify(headers)}`);
  }
  assert.equal((await call(`/api/v0/users/current/?api_key=${key}`)).status, 401, 'the key as a query parameter is not taken');
  assert.equal((await call(`/_sim/inbox?api_key=${key}`)).status, 401, 'nor by the demo inbox');
  assert.equal((await call('/_sim/state', { headers: bearer(key) })).status, 404, 'no test control in the demo');
});

test('a body is read only as JSON with a JSON content type: text/plain is 415 and rents nothing', async () => {
  const s = await started();
  const offer = s.state.offers.find((o) => o.rentable && !o.rented && !o.taken)!;
  const body = JSON.stringify({ image: 'sim/base:1', disk: 8, runtype: 'ssh', label: 'posted-as-text' });
  for (const type of [undefined, 'text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const headers = { ...bearer(key), ...(type ? { 'Content-Type': type } : {}) };
    const r = await call(`/api/v0/asks/${offer.id}/`, { method: 'PUT', headers, body });
    assert.equal(r.status, 415, `${type}: ${JSON.stringify(r.json)}`);
    assert.equal(r.json?.error, 'unsupported_media_type');
  }
  assert.equal([...s.state.instances.values()].filter((i) => i.label === 'posted-as-text').length, 0, 'nothing rented');
  const ok = await call('/api/v0/bundles/', {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json; charset=utf-8' },
    body: '{"limit": 1}',
  });
  assert.equal(ok.status, 200, 'JSON with its content type is read');
});

/** Rents with this onstart, waits until the demo has dealt with it (its note in onstart.log), returns the instance home. */
async function rentWith(onstart: string, label: string, env?: Record<string, string>): Promise<string> {
  const s = await started();
  const offer = s.state.offers.find((o) => o.rentable && !o.rented && !o.taken)!;
  const r = await call(`/api/v0/asks/${offer.id}/`, {
    method: 'PUT',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify({ image: 'sim/base:1', disk: 8, runtype: 'ssh', label, onstart, ...(env ? { env } : {}) }),
  });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const home = instanceHome(s.state, r.json!.new_contract as number);
  await waitFor(
    () => existsSync(join(home, 'onstart.log')) && readFileSync(join(home, 'onstart.log'), 'utf8').includes(GATED_NOTE.trim()),
    60_000,
    `the demo to take up ${label}'s onstart`,
  );
  return home;
}

test("a hostile onstart sent to the demo does not run; with the guard, only the demo's own watchdog runs", async () => {
  const s = await started();
  const proof = (home: string) => join(home, 'pwned');
  // Plain shell: nothing runs at all.
  const plain = await rentWith('touch "$HOME/pwned"; touch "$HOME/pwned-bg" &', 'plain');
  // The guard's launch line with a setting the guard never sends (GPU_GUARD_SSH_CMD runs a command).
  const sshCmd = await rentWith(
    `GPU_GUARD_SSH_CMD='touch $HOME/pwned' GPU_GUARD_IDLE_MINUTES='1' nohup sh "\${TMPDIR:-/tmp}/gpu-rental/guard.sh" </dev/null >/dev/null 2>&1 &\n`,
    'ssh-cmd',
  );
  // The real guard with a hostile tail, and a guard.sh of someone else's: the demo's watchdog runs, nothing else.
  const composed = composeOnstart('touch "$HOME/pwned"', resolveGuardPlan({ idleMinutes: 30 })!, { apiUrl: 'https://evil.example', dphTotal: 1 });
  const guarded = composed.onstart!;
  const withTail = await rentWith(guarded, 'guard-and-tail', composed.env);
  // The watchdog the request's env carries is someone else's, and env tries to load code into every process.
  const hostileScript = gzipSync('touch "$HOME/pwned"\n').toString('base64');
  const swapped = await rentWith(guarded, 'swapped-guard', { GPU_GUARD_SCRIPT: hostileScript, LD_PRELOAD: '/tmp/pwned.so', ENV: '/tmp/pwned.sh' });
  for (const home of [withTail, swapped]) {
    const state = join(home, 'tmp', 'gpu-rental', 'state.json');
    await waitFor(() => existsSync(state), 60_000, 'the demo watchdog writing its state');
    assert.equal(readFileSync(join(home, 'tmp', 'gpu-rental', 'guard.sh'), 'utf8'), minifiedWatchdog(), "the demo's own watchdog");
  }
  for (const home of [plain, sshCmd, withTail, swapped]) {
    assert.equal(existsSync(proof(home)), false, `the onstart ran in ${home}`);
    assert.equal(existsSync(`${proof(home)}-bg`), false);
  }
  assert.ok(s.state.instances.size >= 4);
});

test("guardLaunchEnv: the guard's own settings only, the API always the simulator", () => {
  const onstart = composeOnstart(undefined, resolveGuardPlan({ idleMinutes: 5, maxHours: 2 })!, { apiUrl: 'https://evil.example', dphTotal: 1 }).onstart!;
  const env = guardLaunchEnv(onstart, 'http://127.0.0.1:9')!;
  assert.equal(env.GPU_GUARD_API, 'http://127.0.0.1:9');
  assert.equal(env.GPU_GUARD_IDLE_MINUTES, '5');
  assert.equal(env.GPU_GUARD_CAP_SECONDS, '7200');
  const packedAll = composeOnstart('x'.repeat(3900), resolveGuardPlan({ idleMinutes: 7 })!, { apiUrl: 'https://e.x', dphTotal: 1 });
  assert.equal(packedAll.form, 'all-compressed');
  assert.equal(guardLaunchEnv(packedAll.onstart, 'http://s')?.GPU_GUARD_IDLE_MINUTES, '7', 'read from the compressed form too');
  // A CPU-only offer's guard (no nvidia-smi expected) runs in the demo too.
  const cpu = composeOnstart(undefined, resolveGuardPlan({})!, { apiUrl: 'https://e.x', dphTotal: 1, gpus: 0 }).onstart!;
  assert.equal(guardLaunchEnv(cpu, 'http://s')?.GPU_GUARD_GPUS, '0');
  // A template's destroyAfterStoppedDays rides on the launch line (VS Code reads it back; the watchdog ignores it).
  const days = composeOnstart(undefined, resolveGuardPlan({ destroyAfterStoppedDays: 3 })!, { apiUrl: 'https://e.x', dphTotal: 1 }).onstart!;
  assert.equal(guardLaunchEnv(days, 'http://s')?.GPU_GUARD_DESTROY_STOPPED_DAYS, '3');
  const launch = (vars: string) => `${vars} nohup sh "\${TMPDIR:-/tmp}/gpu-rental/guard.sh" </dev/null >/dev/null 2>&1 &`;
  assert.equal(guardLaunchEnv(launch("GPU_GUARD_HEARTBEAT='/etc/passwd'"), 'http://s'), undefined, 'an unknown setting');
  assert.equal(guardLaunchEnv(launch("GPU_GUARD_IDLE_MINUTES='$(id)'"), 'http://s'), undefined, 'a value of the wrong kind');
  assert.equal(guardLaunchEnv('echo hi', 'http://s'), undefined);
  assert.equal(guardLaunchEnv(undefined, 'http://s'), undefined);
});
