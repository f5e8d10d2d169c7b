import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { readWatchdogState } from '../../../src/guard/watchdogState';
import {
  DEFAULT_GUARD,
  GuardSetupError,
  ONSTART_LIMIT,
  WATCHDOG_SCRIPT,
  capOf,
  composeOnstart,
  guardEnv,
  guardedOnstart,
  NO_TOOLS,
  baseOnstart,
  guardSummary,
  guardRequestFor,
  installedGuard,
  minifiedWatchdog,
  resolveGuardPlan,
} from '../../../src/guard/plan';
import { instanceHome } from '../../../src/sim/sandbox';
import { cachedServerOnstart, loadTemplate } from '../../../src/create/templateValidation';
import { start, type Ctx } from '../sim/helpers';
import { sleep, until } from './harness';
import { holdSshdLock } from './sessions';
import { needs } from '../tools';

const ctx = { apiUrl: 'https://console.vast.ai/', dphTotal: 0.5 };
const plan = resolveGuardPlan(undefined)!;

describe('guard plan', () => {
  test('defaults: on, stop after 30 idle minutes below 5 %, SSH keeps it; false and the setting turn it off', () => {
    assert.deepEqual(plan, { idleMinutes: 30, gpuUtilBelow: 5, action: 'stop', keepWhileSsh: true });
    assert.equal(resolveGuardPlan(false), undefined);
    assert.equal(resolveGuardPlan(undefined, { ...DEFAULT_GUARD, enabled: false }), undefined);
    // A block applies even with the default setting off: the template asked for it.
    assert.equal(resolveGuardPlan({ idleMinutes: 10 }, { ...DEFAULT_GUARD, enabled: false })?.idleMinutes, 10);
    assert.deepEqual(resolveGuardPlan({ gpuUtilBelow: 20, keepWhileSsh: false, maxHours: 4 }, { enabled: true, idleMinutes: 45, gpuUtilBelow: 5 }), {
      idleMinutes: 45,
      gpuUtilBelow: 20,
      action: 'stop',
      keepWhileSsh: false,
      maxHours: 4,
    });
    assert.equal(resolveGuardPlan({ action: 'destroy' })?.action, 'destroy');
  });

  test('caps: maxHours in seconds; maxSpend at the rented price; the sooner one wins', () => {
    assert.equal(capOf(plan, 1), undefined);
    assert.deepEqual(capOf({ ...plan, maxHours: 2 }, 1), { seconds: 7200, why: 'maxHours' });
    assert.deepEqual(capOf({ ...plan, maxSpend: 3 }, 0.5), { seconds: 21600, why: 'maxSpend' });
    assert.deepEqual(capOf({ ...plan, maxHours: 2, maxSpend: 3 }, 2), { seconds: 5400, why: 'maxSpend' });
    const env = Object.fromEntries(guardEnv({ ...plan, action: 'destroy', maxHours: 1 }, ctx));
    assert.deepEqual(env, {
      // The watchdog's own defaults (the service's URL, 30 min, 5 %, SSH keeps it) are not repeated: onstart is small.
      GPU_GUARD_ACTION: 'destroy',
      GPU_GUARD_CAP_SECONDS: '3600',
      GPU_GUARD_CAP_WHY: 'maxHours',
    });
    assert.deepEqual(
      Object.fromEntries(
        guardEnv({ ...plan, idleMinutes: 10, gpuUtilBelow: 7, keepWhileSsh: false }, { apiUrl: 'https://example.test/', dphTotal: 1, gpus: 0 }),
      ),
      {
        GPU_GUARD_API: 'https://example.test',
        GPU_GUARD_IDLE_MINUTES: '10',
        GPU_GUARD_GPU_BELOW: '7',
        GPU_GUARD_KEEP_WHILE_SSH: '0',
        GPU_GUARD_GPUS: '0',
      },
    );
  });

  test('only a plain http(s) URL reaches the shell', () => {
    for (const bad of ["https://x.example/'; rm -rf / #", 'ftp://x.example', 'https://user:pw@x.example', 'not a url', 'https://x.example/$(id)']) {
      assert.throws(() => guardEnv(plan, { ...ctx, apiUrl: bad }), GuardSetupError, bad);
    }
  });
});

describe('onstart composition', () => {
  test('without a guard the user script is sent unchanged', () => {
    assert.deepEqual(composeOnstart('echo hi', undefined, ctx), { onstart: 'echo hi', form: 'user-only' });
    assert.deepEqual(composeOnstart(undefined, undefined, ctx), { form: 'user-only' });
  });

  test('the embedded watchdog is the shipped script minus comments and indentation', () => {
    const min = minifiedWatchdog();
    assert.ok(!min.startsWith('#'), 'not even the shebang: onstart runs it with sh');
    assert.ok(min.length < WATCHDOG_SCRIPT.length);
    assert.ok(!/^\s*#(?!!)/m.test(min.split('\n').slice(1).join('\n')), 'no comment lines');
  });

  test("the guard is added to the user's onstart, compressed as far as needed; beyond the limit a clear error", () => {
    const first = composeOnstart('ollama serve > /var/log/ollama.log 2>&1 &', plan, ctx);
    assert.ok(first.onstart!.length <= ONSTART_LIMIT);
    assert.equal(first.form, 'guard-env');
    assert.ok(first.onstart!.includes('ollama serve > /var/log/ollama.log 2>&1 &'), "the user's script stays readable");
    assert.equal(
      gunzipSync(Buffer.from(first.env!.GPU_GUARD_SCRIPT!, 'base64')).toString('utf8'),
      minifiedWatchdog(WATCHDOG_SCRIPT, []),
      'the watchdog travels in env',
    );
    const long = `echo start; ${'y'.repeat(3900)}`;
    const over = composeOnstart(long, plan, ctx);
    assert.equal(over.form, 'all-compressed');
    assert.ok(over.onstart!.length <= ONSTART_LIMIT);
    assert.ok(over.onstart!.includes(NO_TOOLS), 'says so on an image without base64/gzip');
    // Text that does not compress: an error that says what to do, before anything is rented.
    const noise = randomBytes(3000).toString('base64');
    assert.throws(
      () => composeOnstart(noise, plan, ctx),
      (e: Error) => e instanceof GuardSetupError && /"guard": false/.test(e.message) && /4048/.test(e.message),
    );
    // The default guard steps aside with a warning; a guard the template asked for fails.
    const warnings: string[] = [];
    assert.deepEqual(
      guardedOnstart(noise, { plan, explicit: false, apiUrl: ctx.apiUrl }, { dphTotal: 1 }, (m) => warnings.push(m)),
      { onstart: noise },
    );
    assert.equal(warnings.length, 1);
    assert.throws(() => guardedOnstart(noise, { plan, explicit: true, apiUrl: ctx.apiUrl }, { dphTotal: 1 }, () => undefined), GuardSetupError);
  });

  test('room: a 2000-character onstart with a Jupyter runtype, busyWhile and beforeStop gets the guard, readable', async () => {
    // Random text: it does not compress, so only the watchdog's move to env makes room for it.
    const user = `: ${randomBytes(1500).toString('base64')}`;
    assert.ok(user.length >= 2000);
    const block = { busyWhile: ['python train.py', 'torchrun'], beforeStop: 'cp -r /workspace/ckpt /workspace/saved', beforeStopSeconds: 120 };
    const req = guardRequestFor(block, 'jupyter_direct', DEFAULT_GUARD, ctx.apiUrl)!;
    const sent = guardedOnstart(user, req, { dphTotal: 1 }, () => assert.fail('no warning'));
    assert.ok(sent.onstart!.length <= ONSTART_LIMIT && sent.onstart!.endsWith(`${user}\n`), "the template's script, as written, last");
    assert.deepEqual(installedGuard(sent.onstart), { idleMinutes: 30, gpuUtilBelow: 5, action: 'stop', keepWhileSsh: true });
    const script = gunzipSync(Buffer.from(sent.env!.GPU_GUARD_SCRIPT!, 'base64')).toString('utf8');
    assert.equal(script, minifiedWatchdog(WATCHDOG_SCRIPT, ['jupyter', 'busyWhile', 'beforeStop']));
    assert.match(guardSummary({ ...req, onstart: user }, 1), /^Idle guard: stops it after 30/);
    const tctx = { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined };
    const t = await loadTemplate(JSON.stringify({ name: 'T', instance: { image: 'i', runtype: 'jupyter_direct', onstart: user }, guard: block }), tctx);
    assert.deepEqual(t.problems, []);
    // The room measured, as docs/idle-guard.md states it: about 3,780 characters, less only the busyWhile and beforeStop text itself.
    const room = (p: typeof plan) => ONSTART_LIMIT - composeOnstart(undefined, p, ctx).onstart!.length;
    assert.ok(room(plan) >= 3750, String(room(plan)));
    assert.ok(room(req.plan) >= 3600, String(room(req.plan)));
  });

  test('a CPU-only offer: the watchdog is told there are no GPUs (GPU_GUARD_GPUS=0), so no nvidia-smi is not taken as busy', () => {
    const req = { plan, explicit: false, apiUrl: ctx.apiUrl };
    const cpu = guardedOnstart('echo hi', req, { dphTotal: 1, gpus: 0 }, () => undefined).onstart!;
    assert.match(cpu, /GPU_GUARD_GPUS='0' nohup sh/);
    assert.doesNotMatch(guardedOnstart('echo hi', req, { dphTotal: 1, gpus: 2 }, () => undefined).onstart!, /GPU_GUARD_GPUS/);
  });

  test('a server template keeps its own onstart: it is read first and the guard is added to it', async () => {
    const req = { plan, explicit: false, apiUrl: ctx.apiUrl };
    const asked: string[] = [];
    const lookUp = async (h: string) => (asked.push(h), { hash_id: h, onstart: 'ollama serve > /var/log/ollama.log 2>&1 &' });
    assert.equal(await baseOnstart(undefined, 'abc123', req, lookUp), 'ollama serve > /var/log/ollama.log 2>&1 &');
    assert.deepEqual(asked, ['abc123']);
    // The template's own onstart wins (the service would replace the server template's with it anyway); no guard: nothing to read.
    assert.equal(await baseOnstart('echo mine', 'abc123', req, lookUp), 'echo mine');
    assert.equal(await baseOnstart(undefined, 'abc123', undefined, lookUp), undefined);
    assert.equal(asked.length, 1);
    await assert.rejects(
      baseOnstart(undefined, 'abc123', req, async () => undefined),
      GuardSetupError,
    );
    await assert.rejects(
      baseOnstart(undefined, 'abc123', req, async () => {
        throw new Error('HTTP 500');
      }),
      (e: Error) => e instanceof GuardSetupError && /HTTP 500/.test(e.message),
    );
    const composed = composeOnstart(await baseOnstart(undefined, 'abc123', req, lookUp), plan, ctx).onstart!;
    assert.ok(installedGuard(composed), 'the guard is there');
  });

  test('the Rent confirmation promises the guard only when it fits with the onstart really sent', async () => {
    const noise = randomBytes(3000).toString('base64');
    const dflt = { plan, explicit: false, apiUrl: ctx.apiUrl };
    assert.match(guardSummary(dflt, 1, 'echo hi'), /^Idle guard: stops it after 30 idle minutes/);
    assert.match(guardSummary(dflt, 1, noise), /^Idle guard: none .*leaves no room for the default guard/);
    assert.doesNotMatch(guardSummary(dflt, 1, noise), /stops it after/);
    assert.match(guardSummary({ ...dflt, explicit: true }, 1, noise), /^Idle guard: cannot be installed, so nothing will be rented/);
    assert.match(guardSummary(dflt, 1, `echo start; : ${'y'.repeat(3900)}`), /must have base64 and gzip/);
    // A server template's onstart, read by baseOnstart, is what the confirmation is computed from.
    const server = { ...dflt };
    await baseOnstart(undefined, 'abc123', server, async (h) => ({ hash_id: h, onstart: noise }));
    assert.match(guardSummary(server, 1), /^Idle guard: none/);
    const small = { ...dflt };
    await baseOnstart(undefined, 'abc123', small, async (h) => ({ hash_id: h, onstart: 'ollama serve &' }));
    assert.match(guardSummary(small, 1), /^Idle guard: stops it/);
  });

  test('templates: a service template whose onstart leaves no room for the guard gets a diagnostic (when its onstart is known)', async () => {
    const noise = randomBytes(3000).toString('base64');
    const tctx = { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined, serverOnstart: async () => noise };
    const t = { name: 'T', instance: { image: 'i', template_hash_id: 'abc123' } };
    const r = await loadTemplate(JSON.stringify(t), tctx);
    assert.ok(
      r.problems.some((p) => p.where === 'instance.template_hash_id' && p.severity === 'warning' && /default idle guard/.test(p.message)),
      JSON.stringify(r.problems),
    );
    const fits = await loadTemplate(JSON.stringify(t), { ...tctx, serverOnstart: async () => 'ollama serve &' });
    assert.deepEqual(fits.problems, []);
  });

  test('templates: a service template that cannot be read gives an informational diagnostic; none is read when no guard is added', async () => {
    const asked: string[] = [];
    const tctx = {
      workspaceFolder: '/w',
      env: {},
      secret: async () => undefined,
      readFile: async () => undefined,
      serverOnstart: async (h: string) => {
        asked.push(h);
        throw new Error('HTTP 503');
      },
    };
    const t = { name: 'T', instance: { image: 'i', template_hash_id: 'abc123' } };
    const r = await loadTemplate(JSON.stringify(t), tctx);
    assert.ok(r.template, 'not an error: the template can be rented (the rent reads it again)');
    assert.deepEqual(
      r.problems.map((p) => [p.where, p.severity]),
      [['instance.template_hash_id', 'info']],
    );
    assert.match(r.problems[0]!.message, /abc123 could not be read \(HTTP 503\)/);
    await loadTemplate(JSON.stringify({ ...t, guard: false }), tctx);
    await loadTemplate(JSON.stringify({ ...t, instance: { ...t.instance, onstart: 'echo mine' } }), tctx);
    assert.deepEqual(asked, ['abc123'], 'read only where the guard is added to it');
  });

  test("templates: service templates' start scripts are read lazily, once per hash id, and a failed read is tried again", async () => {
    const asked: string[] = [];
    let fail = true;
    const read = cachedServerOnstart(async (h) => {
      asked.push(h);
      if (h === 'gone') return undefined;
      if (fail) throw new Error('HTTP 500');
      return { hash_id: h, onstart: h === 'blank' ? '  ' : 'ollama serve &' };
    });
    assert.deepEqual(asked, [], 'nothing read before a template names one');
    await assert.rejects(read('abc'), /HTTP 500/);
    fail = false;
    assert.equal(await read('abc'), 'ollama serve &');
    assert.equal(await read('abc'), 'ollama serve &');
    assert.equal(await read('blank'), undefined);
    await assert.rejects(read('gone'), /no template gone/);
    assert.deepEqual(asked, ['abc', 'abc', 'blank', 'gone']);
  });

  test('templates: busyWhile, beforeStop and beforeStopSeconds are checked with words that say what is accepted', async () => {
    const tctx = { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined };
    const load = (g: unknown) => loadTemplate(JSON.stringify({ name: 'T', instance: { image: 'i' }, guard: g }), tctx);
    for (const g of [{ busyWhile: ['python train.py'] }, { beforeStop: 'cp -r /workspace/ckpt /workspace/saved', beforeStopSeconds: 120 }]) {
      const ok = await load(g);
      assert.ok(ok.template, JSON.stringify(ok.problems));
    }
    const bad = await load({ busyWhile: ['python "x"; rm -rf /'], beforeStop: 'a\nb', beforeStopSeconds: 0 });
    assert.equal(bad.template, undefined);
    const by = Object.fromEntries(bad.problems.map((p) => [p.where, p.message]));
    assert.match(by['guard.busyWhile[0]'] ?? '', /A part of a command line/, JSON.stringify(bad.problems));
    assert.match(by['guard.beforeStop'] ?? '', /One line/);
    assert.match(by['guard.beforeStopSeconds'] ?? '', /at least 1/);
  });

  test('busyWhile and beforeStop reach the watchdog; the beforeStop text cannot change what the guard is read as', () => {
    const p = resolveGuardPlan({ busyWhile: ['python train.py', 'torchrun'], beforeStop: "echo it's GPU_GUARD_ACTION='destroy'" })!;
    const env = Object.fromEntries(guardEnv(p, ctx));
    assert.equal(env.GPU_GUARD_BUSY_WHILE, 'python train.py|torchrun');
    assert.equal(env.GPU_GUARD_BEFORE_STOP_SECONDS, undefined, "the watchdog's default 300 s is not repeated");
    const composed = composeOnstart(undefined, { ...p, busyWhile: [] }, ctx);
    const read = installedGuard(composed.onstart)!;
    assert.equal(read.action, 'stop');
    assert.equal(read.idleMinutes, 30);
    assert.throws(() => guardEnv({ ...p, beforeStop: 'a\nb' }, ctx), GuardSetupError);
  });

  test('templates: an explicit guard that cannot be installed is an error; the default one a warning', async () => {
    const noise = randomBytes(3000).toString('base64');
    const tctx = { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined };
    const load = (t: unknown) => loadTemplate(JSON.stringify(t), tctx);
    const explicit = await load({ name: 'T', instance: { image: 'i', onstart: noise }, guard: { idleMinutes: 10 } });
    assert.equal(explicit.template, undefined);
    assert.ok(explicit.problems.some((p) => p.where === 'instance.onstart' && p.severity === 'error' && /"guard": false/.test(p.message)));
    const dflt = await load({ name: 'T', instance: { image: 'i', onstart: noise } });
    assert.ok(dflt.template, JSON.stringify(dflt.problems));
    assert.ok(dflt.problems.some((p) => p.severity === 'warning' && /default idle guard/.test(p.message)));
    const long = await load({ name: 'T', instance: { image: 'i', onstart: `echo start; : ${'y'.repeat(3900)}` } });
    assert.ok(long.template);
    assert.ok(
      long.problems.some((p) => p.where === 'instance.onstart' && p.severity === 'warning' && /base64 and gzip/.test(p.message)),
      JSON.stringify(long.problems),
    );
    const off = await load({ name: 'T', instance: { image: 'i', onstart: noise }, guard: false });
    assert.deepEqual(off.problems, []);
    const args = await load({ name: 'T', instance: { image: 'i', runtype: 'args' }, guard: { action: 'destroy' } });
    assert.ok(args.problems.some((p) => p.where === 'guard' && /does not run onstart/.test(p.message)));
    const bad = await load({ name: 'T', instance: { image: 'i' }, guard: { action: 'delete', idleMinutes: 0, gpuUtilBelow: 500, bogus: 1 } });
    assert.equal(bad.template, undefined);
    assert.deepEqual(
      bad.problems.map((p) => p.where).sort(),
      ['guard.action', 'guard.bogus', 'guard.gpuUtilBelow', 'guard.idleMinutes'],
      JSON.stringify(bad.problems),
    );
    assert.match(bad.problems.find((p) => p.where === 'guard.action')!.message, /"stop", "destroy"/);
  });
});

describe('the composed onstart runs for real', () => {
  let c!: Ctx;
  // Not while another run's scenario matrix holds a session to its fake sshd: these guards would count it.
  holdSshdLock('shared');
  before(async () => {
    c = await start({ bootSeconds: 1 });
  });
  after(async () => {
    await c?.sim.close();
  });

  async function rent(onstart: string, env?: Record<string, string>): Promise<{ id: number; key: string }> {
    const free = c.sim.state.offers.find((o) => o.rentable && o.verified && !o.rented && !o.taken)!;
    const r = await c.call('PUT', `/api/v0/asks/${free.id}/`, { image: 'ubuntu', runtype: 'ssh_direct', onstart, ...(env ? { env } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return { id: r.json.new_contract, key: r.json.instance_api_key };
  }

  const TOOLS = [
    'mkdir',
    'wc',
    'date',
    'mv',
    'tr',
    'cat',
    'rm',
    'sleep',
    'stat',
    'cut',
    'awk',
    'grep',
    'head',
    'printf',
    'echo',
    'nohup',
    'curl',
    'sed',
    'tee',
    'sh',
    'dash',
    'busybox',
  ];
  /** A bin folder with the tools an image has (optionally without base64 and gzip). */
  function image(dir: string, withPacking: boolean): string {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const t of [...TOOLS, ...(withPacking ? ['base64', 'gzip'] : [])]) {
      const r = spawnSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' });
      if (r.status === 0 && r.stdout.trim().startsWith('/')) symlinkSync(r.stdout.trim(), join(bin, t));
    }
    return bin;
  }

  for (const shell of [['dash'], ['busybox', 'sh']]) {
    for (const [form, user] of [
      ['guard-env', 'echo user-ran > "$HOME/marker"; sleep 30'],
      ['all-compressed', `echo user-ran > "$HOME/marker"; : ${'y'.repeat(3900)}; sleep 30`],
    ] as const) {
      for (const packing of [true, false]) {
        test(
          `${form} under ${shell.join(' ')} ${packing ? 'with' : 'without'} base64/gzip: the user's script runs (or the reason is printed) and the guard acts`,
          { skip: needs(shell[0] as 'dash' | 'busybox') },
          async () => {
            const composed = composeOnstart(user, { ...plan, idleMinutes: 1 }, { apiUrl: c.sim.url, dphTotal: 1 });
            assert.equal(composed.form, form);
            const inst = await rent(composed.onstart!, composed.env);
            await c.ctl.finishBoot(inst.id);
            const home = mkdtempSync(join(tmpdir(), 'gpu-onstart-'));
            const bin = image(home, packing);
            let err = '';
            const child = spawn(shell[0]!, [...shell.slice(1), '-c', composed.onstart!], {
              cwd: home,
              env: {
                ...composed.env,
                PATH: bin,
                HOME: home,
                TMPDIR: home,
                CONTAINER_ID: String(inst.id),
                CONTAINER_API_KEY: inst.key,
                GPU_GUARD_TICK: '1',
                GPU_GUARD_IDLE_SECONDS: '2',
                GPU_GUARD_SSH_PORT: '1',
                GPU_GUARD_GPUS: '0',
              },
              detached: true,
              stdio: ['ignore', 'ignore', 'pipe'],
            });
            child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
            try {
              if (!packing && form === 'all-compressed') {
                await until('the reason is printed', () => err.includes(NO_TOOLS));
                assert.ok(!existsSync(join(home, 'marker')));
                return;
              }
              await until('the user script ran', () => existsSync(join(home, 'marker')));
              if (!packing) {
                // guard-env: the user's part is plain and runs; the guard cannot unpack, and its state says so at once.
                const s = await until('the state says why', () => {
                  try {
                    return readWatchdogState(JSON.parse(readFileSync(join(home, 'gpu-rental', 'state.json'), 'utf8')));
                  } catch {
                    return undefined;
                  }
                });
                assert.match(String(s?.cannotAct), /cannot act: no base64 or gzip/);
                return;
              }
              // The user's script blocks (sleep 30); the guard does its job anyway.
              await until('the guard stopped the instance', () => c.sim.state.instances.get(inst.id)?.intended === 'stopped');
              const state = await until('the guard recorded the stop', () => {
                const s = readWatchdogState(JSON.parse(readFileSync(join(home, 'gpu-rental', 'state.json'), 'utf8')));
                return typeof s?.doneAt === 'number' ? s : undefined;
              });
              assert.equal(state?.idleLimitSeconds, 2);
            } finally {
              try {
                process.kill(-child.pid!, 'SIGKILL');
              } catch {}
              rmSync(home, { recursive: true, force: true });
            }
          },
        );
      }
    }
  }

  test('the simulator runs onstart only when asked; then gpu_util follows the fake nvidia-smi and the watchdog acts', async () => {
    const composed = composeOnstart('echo started > "$HOME/marker"', { ...plan, idleMinutes: 1 }, { apiUrl: c.sim.url, dphTotal: 1 });
    assert.equal(composed.form, 'guard-env', "the watchdog comes from the request's env, as the service passes it to onstart");
    const off = await rent(composed.onstart!, composed.env);
    await c.ctl.finishBoot(off.id);
    await sleep(800);
    assert.ok(!existsSync(join(instanceHome(c.sim.state, off.id), 'marker')), 'off by default');

    await c.ctl.runOnstart(true, { GPU_GUARD_TICK: 1, GPU_GUARD_IDLE_SECONDS: 3 });
    try {
      const inst = await rent(composed.onstart!, composed.env);
      await c.ctl.setGpuUtil(inst.id, [10, 80]);
      await c.ctl.finishBoot(inst.id);
      const home = instanceHome(c.sim.state, inst.id);
      await until('onstart ran', () => existsSync(join(home, 'marker')));
      const listed = (await c.call('GET', `/api/v0/instances/${inst.id}/`)).json.instances;
      assert.equal(listed.gpu_util, 80);
      const stateFile = join(home, 'tmp', 'gpu-rental', 'state.json');
      await until('the watchdog reports', () => existsSync(stateFile));
      await sleep(3500);
      assert.equal(c.sim.state.instances.get(inst.id)?.intended, 'running', 'busy GPU keeps it');
      assert.equal(readWatchdogState(JSON.parse(readFileSync(stateFile, 'utf8')))?.gpuUtil, 80);
      await c.ctl.setGpuUtil(inst.id, 0);
      await until('stopped by the watchdog', () => c.sim.state.instances.get(inst.id)?.intended === 'stopped');
      const calls = (await c.ctl.requests()).filter((q) => q.path === `/api/v0/instances/${inst.id}/` && q.method === 'PUT');
      assert.deepEqual(
        calls.map((q) => q.status),
        [200],
      );
    } finally {
      await c.ctl.runOnstart(false);
    }
  });

  test('/_sim/onstart only accepts GPU_GUARD_* knobs', async () => {
    await assert.rejects(c.ctl.runOnstart(true, { PATH: '/evil' }), /GPU_GUARD_/);
  });
});

describe('guard.destroyAfterStoppedDays from a template', () => {
  const tctx = { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined };
  const load = (g: unknown) => loadTemplate(JSON.stringify({ name: 'T', instance: { image: 'i' }, guard: g }), tctx);

  test('templates: whole days 1..365, one diagnostic per mistake that says what is accepted', async () => {
    for (const d of [1, 7, 365]) {
      const ok = await load({ destroyAfterStoppedDays: d });
      assert.ok(ok.template, JSON.stringify(ok.problems));
      assert.deepEqual(ok.problems, []);
    }
    for (const [d, words] of [
      [0, /at least 1/],
      [366, /at most 365/],
      [2.5, /whole number|integer/i],
      ['7', /number|integer/i],
      [null, /number|integer/i],
    ] as const) {
      const bad = await load({ destroyAfterStoppedDays: d });
      assert.equal(bad.template, undefined, String(d));
      assert.equal(bad.problems.length, 1, JSON.stringify(bad.problems));
      assert.equal(bad.problems[0]!.where, 'guard.destroyAfterStoppedDays');
      assert.match(bad.problems[0]!.message, words, JSON.stringify(bad.problems));
    }
  });

  test('it travels with the instance: composed into onstart, read back by installedGuard; absent without it', () => {
    const p = resolveGuardPlan({ destroyAfterStoppedDays: 14 })!;
    assert.equal(Object.fromEntries(guardEnv(p, ctx)).GPU_GUARD_DESTROY_STOPPED_DAYS, '14');
    const forms = new Set<string>();
    for (const user of [undefined, 'echo hi', `echo start; : ${'y'.repeat(3900)}`]) {
      const composed = composeOnstart(user, p, ctx);
      forms.add(composed.form);
      assert.equal(installedGuard(composed.onstart)?.destroyStoppedDays, 14, composed.form);
    }
    assert.ok(forms.has('all-compressed') && forms.size > 1, `every form of onstart carries it: ${[...forms].join(', ')}`);
    assert.equal(installedGuard(composeOnstart('echo hi', plan, ctx).onstart)?.destroyStoppedDays, undefined);
    assert.equal(Object.fromEntries(guardEnv(plan, ctx)).GPU_GUARD_DESTROY_STOPPED_DAYS, undefined);
    // A value the schema refuses never reaches the instance.
    assert.equal(Object.fromEntries(guardEnv({ ...plan, destroyAfterStoppedDays: 0.5 }, ctx)).GPU_GUARD_DESTROY_STOPPED_DAYS, undefined);
  });

  test('the Rent confirmation says plainly that it is destroyed after N days stopped; nothing without it', () => {
    const req = { plan: resolveGuardPlan({ destroyAfterStoppedDays: 3 })!, explicit: true, apiUrl: 'https://console.vast.ai' };
    assert.match(
      guardSummary(req, 1, 'echo hi'),
      /^Idle guard: stops it after 30 idle minutes .*\. Destroyed after 3 days stopped, with its disk and all data \(a warning with Keep comes a day before/,
    );
    assert.match(guardSummary({ ...req, plan: { ...req.plan, destroyAfterStoppedDays: 1 } }, 1, 'echo hi'), /Destroyed after 1 day stopped/);
    assert.doesNotMatch(guardSummary({ ...req, plan }, 1, 'echo hi'), /[Dd]estroy/);
  });
});
