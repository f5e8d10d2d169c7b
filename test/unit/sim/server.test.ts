import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEMPLATES } from '../../../src/sim';
import { anOffer, brief, useSim, type Ctx } from './helpers';
import { startSim } from '../../kit/sim';
import { waitFor } from '../../kit/wait';

let c!: Ctx;
// These tests pin the seed era: exactly service-api.md (today.test.ts covers the live service).
useSim((x) => (c = x), { era: 'seed' });

const create = (offerId: number, body: unknown, key?: string) => c.call('PUT', `/api/v0/asks/${offerId}/`, body, key);
const show = async (id: number) => (await c.call('GET', `/api/v0/instances/${id}/`)).json.instances;

describe('auth', () => {
  test('missing or wrong key: 401 auth_error on instance, offer and user endpoints', async () => {
    for (const [m, p] of [
      ['GET', '/api/v0/instances/'],
      ['GET', '/api/v0/instances/1/'],
      ['POST', '/api/v0/bundles/'],
      ['GET', '/api/v0/users/current/'],
    ]) {
      for (const key of [null, 'not-a-key']) {
        const r = await c.call(m!, p!, m === 'POST' ? {} : undefined, key);
        assert.equal(r.status, 401, `${m} ${p}`);
        assert.deepEqual(Object.keys(r.json).sort(), ['error', 'msg', 'success']);
        assert.equal(r.json.error, 'auth_error');
        assert.equal(r.json.success, false);
        assert.equal(r.type, 'application/json');
      }
    }
  });
  test('legacy api_key query and paths without trailing slash', async () => {
    const r = await c.call('GET', '/api/v0/instances?owner=me&api_key=sim-api-key', undefined, null);
    assert.equal(r.status, 200);
    assert.equal(r.json.instances_found, 0);
    assert.equal((await c.call('GET', '/api/v0/users/current?api_key=sim-api-key', undefined, null)).json.id, 424242);
  });
  test('read-only key reads but gets 403 on writes', async () => {
    const offer = await anOffer(c);
    assert.equal((await c.call('GET', '/api/v0/instances/', undefined, 'sim-read-only-key')).status, 200);
    assert.equal((await c.call('POST', '/api/v0/bundles/', { limit: 1 }, 'sim-read-only-key')).status, 200);
    assert.equal((await create(offer.id, { image: 'ubuntu' }, 'sim-read-only-key')).status, 403);
    const id = (await create(offer.id, { image: 'ubuntu' })).json.new_contract;
    assert.equal((await c.call('PUT', `/api/v0/instances/${id}/`, { state: 'stopped' }, 'sim-read-only-key')).status, 403);
    assert.equal((await c.call('DELETE', `/api/v0/instances/${id}/`, undefined, 'sim-read-only-key')).status, 403);
  });
  test('instance_api_key only starts, stops and destroys its own instance', async () => {
    const [o1, o2] = (await c.call('POST', '/api/v0/bundles/', { limit: 2 })).json.offers;
    const a = (await create(o1.id, { image: 'ubuntu' })).json;
    const b = (await create(o2.id, { image: 'ubuntu' })).json;
    const k = a.instance_api_key;
    assert.equal((await c.call('GET', '/api/v0/instances/', undefined, k)).status, 403);
    assert.equal((await c.call('PUT', `/api/v0/instances/${b.new_contract}/`, { state: 'stopped' }, k)).status, 403);
    assert.equal((await c.call('PUT', `/api/v0/instances/${a.new_contract}/`, { label: 'x' }, k)).status, 403);
    assert.equal((await c.call('PUT', `/api/v0/instances/${a.new_contract}/`, { state: 'stopped' }, k)).status, 200);
    assert.equal((await c.call('DELETE', `/api/v0/instances/${a.new_contract}/`, undefined, k)).status, 200);
  });
  test('control endpoints are 404 without testControl', async () => {
    const s = await startSim();
    try {
      const r = await fetch(`${s.url}/_sim/outbox`);
      assert.equal(r.status, 404);
    } finally {
      await s.close();
    }
  });
});

describe('search', () => {
  const search = async (body: unknown) => {
    const r = await c.call('POST', '/api/v0/bundles/', body);
    assert.equal(r.status, 200, brief(r.json));
    return r.json.offers as any[];
  };
  test('default limit 64, score descending, deterministic by seed', async () => {
    const rows = await search({});
    assert.equal(rows.length, 64);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].score >= rows[i].score);
    assert.deepEqual(
      (await search({})).map((o) => o.id),
      rows.map((o) => o.id),
    );
    const other = await startSim({ seed: 2 });
    try {
      const r = await fetch(`${other.url}/api/v0/bundles/`, { method: 'POST', headers: { Authorization: 'Bearer sim-api-key' }, body: '{}' });
      const ids = ((await r.json()) as any).offers.map((o: any) => o.id);
      assert.notDeepEqual(
        ids,
        rows.map((o) => o.id),
      );
    } finally {
      await other.close();
    }
  });
  test('filters: eq/in on gpu_name, gte num_gpus as numeric strings, booleans, gpu_ram MB, reliability', async () => {
    const rows = await search({
      gpu_name: { in: ['RTX 4090', 'H100 SXM'] },
      num_gpus: { gte: '2' },
      verified: { eq: true },
      rentable: { eq: 'true' },
      external: { eq: false },
      reliability: { gte: 0.95 },
      gpu_ram: { gte: 20000 },
      direct_port_count: { gte: 10 },
      limit: 1000,
    });
    assert.ok(rows.length > 0);
    for (const o of rows) {
      assert.ok(['RTX 4090', 'H100 SXM'].includes(o.gpu_name));
      assert.ok(o.num_gpus >= 2 && o.verified && o.rentable && !o.external && o.reliability >= 0.95);
      assert.ok(o.gpu_ram >= 20000 && o.direct_port_count >= 10);
    }
    const exact = await search({ num_gpus: { eq: '2' }, limit: 1000 });
    assert.ok(exact.length > 0 && exact.every((o) => o.num_gpus === 2));
  });
  test('operators lt/lte/gt/neq/nin and order asc/desc, limit', async () => {
    const cheap = await search({ dph_total: { lte: 0.5 }, order: [['dph_total', 'asc']], limit: 10 });
    assert.equal(cheap.length, 10);
    for (let i = 1; i < cheap.length; i++) assert.ok(cheap[i - 1].dph_total <= cheap[i].dph_total);
    assert.ok(cheap.every((o) => o.dph_total <= 0.5));
    const lt = await search({ num_gpus: { lt: 2, neq: 0 }, gpu_name: { nin: ['RTX 3090'] }, limit: 1000 });
    assert.ok(lt.every((o) => o.num_gpus === 1 && o.gpu_name !== 'RTX 3090'));
    const gt = await search({ dlperf: { gt: '100' }, order: [['dlperf_per_dphtotal', 'desc']] });
    assert.ok(gt.every((o) => o.dlperf > 100));
    for (let i = 1; i < gt.length; i++) assert.ok(gt[i - 1].dlperf_per_dphtotal >= gt[i].dlperf_per_dphtotal);
    const noDir = await search({ order: [['dph_total']], limit: 5 });
    for (let i = 1; i < noDir.length; i++) assert.ok(noDir[i - 1].dph_total <= noDir[i].dph_total);
  });
  test('type bid returns the bid price; on-demand and ondemand agree', async () => {
    const od = await search({ type: 'on-demand', order: [['id', 'asc']], limit: 5 });
    assert.deepEqual(await search({ type: 'ondemand', order: [['id', 'asc']], limit: 5 }), od);
    const bid = await search({ type: 'bid', order: [['id', 'asc']], limit: 5 });
    for (let i = 0; i < 5; i++) {
      assert.equal(bid[i].id, od[i].id);
      assert.equal(bid[i].dph_total, od[i].min_bid);
      assert.ok(bid[i].dph_total < od[i].dph_total);
    }
    assert.equal((await c.call('POST', '/api/v0/bundles/', { type: 'cheap' })).status, 400);
    assert.equal((await c.call('POST', '/api/v0/bundles/', { num_gpus: { about: 2 } })).status, 400);
  });
  test('rented and taken offers disappear', async () => {
    const offer = await anOffer(c);
    await create(offer.id, { image: 'ubuntu' });
    const [o2] = await search({ limit: 1 });
    assert.notEqual(o2.id, offer.id);
    await c.ctl.fault({ kind: 'offer_taken', offerId: o2.id });
    assert.ok(!(await search({ limit: 1000 })).some((o) => o.id === offer.id || o.id === o2.id));
    const gone = await create(o2.id, { image: 'ubuntu', cancel_unavail: true });
    assert.equal(gone.status, 410);
    assert.equal(gone.json.error, 'no_such_ask');
    const gone2 = await create(o2.id, { image: 'ubuntu' });
    assert.equal(gone2.status, 404);
    assert.equal(gone2.json.error, 'no_such_ask');
  });
});

describe('creation', () => {
  const bad = async (body: unknown, error = 'invalid_args') => {
    const offer = await anOffer(c);
    const r = await create(offer.id, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.json.error, error);
    assert.equal(r.json.success, false);
    assert.equal(typeof r.json.msg, 'string');
    assert.equal((await c.call('GET', '/api/v0/instances/')).json.instances_found, 0, 'nothing created');
  };
  test('validation rules', async () => {
    await bad({});
    await bad({ label: 'x' });
    await bad({ image: 'ubuntu', onstart: 'x'.repeat(4049) });
    await bad({ image: 'ubuntu', env: '-e X=1' });
    await bad({ image: 'ubuntu', env: { '-e X=1': '1' } });
    await bad({ image: 'ubuntu', env: ['X=1'] });
    await bad({ image: 'ubuntu', args_str: 'python x.py' });
    await bad({ image: 'ubuntu', runtype: 'telnet' });
    await bad({ image: 'ubuntu', target_state: 'paused' });
    await bad({ image: 'ubuntu', volume_info: { volume_id: 3 } });
    await bad({ image: 'ubuntu', volume_info: { mount_path: '/data' } });
    await bad({ image: 'ubuntu', disk: -1 });
    await bad({ image: 'ubuntu', price: 0.0001 }, 'bid_too_low');
    await bad({ image: 42 });
  });
  test('onstart at the 4048 limit, defaults, env ports, null fields and extra keys accepted', async () => {
    const offer = await anOffer(c);
    const r = await create(offer.id, {
      image: 'ubuntu:22.04',
      onstart: 'x'.repeat(4048),
      env: { FOO: 'bar', '-p 8081:8081': '1' },
      runtype: 'ssh_direc ssh_proxy',
      price: null,
      label: null,
      client_id: 'me',
      force: false,
      extra: null,
      volume_info: { volume_id: 7, mount_path: '/data' },
    });
    assert.equal(r.status, 200, brief(r.json));
    assert.deepEqual(Object.keys(r.json).sort(), ['instance_api_key', 'new_contract', 'success']);
    const id = r.json.new_contract;
    await c.ctl.finishBoot(id);
    const i = await show(id);
    assert.equal(i.disk_space, 8);
    assert.equal(i.is_bid, false);
    assert.equal(i.label, null);
    assert.deepEqual(i.extra_env, [['FOO', 'bar']]);
    assert.ok(i.ports['8081/tcp'] && i.ports['22/tcp']);
    assert.equal(typeof i.ports['22/tcp'][0].HostPort, 'string');
    assert.equal(i.image_runtype, 'ssh ssh_direc ssh_proxy');
    assert.equal(i.jupyter_token, undefined);
  });
  test('price makes it interruptible; args runtype takes args_str; jupyter gets a token; POST works too', async () => {
    const [a, b, d] = (await c.call('POST', '/api/v0/bundles/', { type: 'bid', limit: 3 })).json.offers;
    const r = await create(a.id, { image: 'ubuntu', price: a.dph_total });
    const i = await show(r.json.new_contract);
    assert.equal(i.is_bid, true);
    assert.ok(Math.abs(i.dph_base - a.dph_total) < 1e-9);
    const r2 = await c.call('POST', `/api/v0/asks/${b.id}/`, { image: 'ubuntu', runtype: 'args', args_str: 'python -m http.server' });
    assert.equal(r2.status, 200);
    assert.deepEqual((await show(r2.json.new_contract)).image_args, ['python', '-m', 'http.server']);
    const r3 = await create(d.id, { image: 'jupyter/base', runtype: 'jupyter_direct' });
    assert.match((await show(r3.json.new_contract)).jupyter_token, /^[0-9a-f]{64}$/);
  });
  test('template: env merge (request wins), overrides, docker login carried over', async () => {
    const t = TEMPLATES.find((x) => x.name === 'vllm-serve')!;
    const offer = await anOffer(c);
    const r = await create(offer.id, { template_hash_id: t.hash_id, env: { VLLM_PORT: '9000', EXTRA: '1' }, disk: 100 });
    assert.equal(r.status, 200, brief(r.json));
    const i = await show(r.json.new_contract);
    assert.equal(i.image_uuid, t.image);
    assert.equal(i.template_hash_id, t.hash_id);
    assert.equal(i.disk_space, 100);
    const env = Object.fromEntries(i.extra_env);
    assert.equal(env.HF_HOME, '/workspace/hf');
    assert.equal(env.VLLM_PORT, '9000');
    assert.equal(env.EXTRA, '1');
    assert.equal(i.image_runtype, 'args');
    const inst = c.sim.state.instances.get(r.json.new_contract)!;
    assert.equal(inst.dockerLogin?.user, 'sim-robot');
    assert.equal(JSON.stringify(i).includes('sim-registry-password'), false);
    const o2 = (await c.call('POST', '/api/v0/bundles/', { limit: 1 })).json.offers[0];
    const r2 = await create(o2.id, { template_hash_id: 'pytorch-cuda12', image: 'my/image:1', runtype: 'ssh_proxy' });
    const i2 = await show(r2.json.new_contract);
    assert.equal(i2.image_uuid, 'my/image:1');
    assert.equal(i2.template_name, 'pytorch-cuda12');
    assert.equal(i2.disk_space, 32);
    assert.equal((await create(o2.id + 1, { template_hash_id: 'nope' })).json.error, 'invalid_template');
  });
});

describe('lifecycle, costs and faults', () => {
  test('stop shape, restart with a new port, label, terminal failures', async () => {
    const offer = await anOffer(c);
    const id = (await create(offer.id, { image: 'ubuntu', runtype: 'ssh_direct', label: 'a' })).json.new_contract;
    await c.ctl.advance(61);
    const run = await show(id);
    assert.equal(run.actual_status, 'running');
    assert.equal(run.ssh_host, '127.0.0.1');
    assert.ok(run.ssh_port >= 10000 && run.ssh_port < 60000);
    await c.call('PUT', `/api/v0/instances/${id}/`, { state: 'stopped' });
    const st = await show(id);
    assert.deepEqual([st.actual_status, st.intended_status, st.cur_state, st.next_state], ['exited', 'stopped', 'stopped', 'stopped']);
    assert.equal(st.ssh_port, 0);
    assert.equal(st.ports, null);
    assert.equal(st.dph_total, run.dph_total);
    assert.equal(st.instance.totalHour, st.storage_cost);
    assert.ok(st.instance.totalHour < st.search.totalHour);
    await c.call('PUT', `/api/v0/instances/${id}/`, { state: 'running' });
    assert.equal((await show(id)).actual_status, null);
    await c.ctl.advance(20);
    assert.equal((await show(id)).actual_status, 'loading');
    await c.ctl.advance(45);
    const again = await show(id);
    assert.equal(again.actual_status, 'running');
    assert.notEqual(again.ssh_port, run.ssh_port);
    await c.call('PUT', `/api/v0/instances/${id}/`, { label: 'renamed' });
    assert.equal((await show(id)).label, 'renamed');
    for (const s of ['exited', 'unknown', 'offline']) {
      await c.ctl.fault({ kind: 'instance_state', id, state: s });
      await c.ctl.advance(600);
      const f = await show(id);
      assert.equal(f.actual_status, s);
      assert.equal(f.intended_status, 'running');
    }
  });
  test('target_state stopped creates it stopped', async () => {
    const offer = await anOffer(c);
    const id = (await create(offer.id, { image: 'ubuntu', target_state: 'stopped' })).json.new_contract;
    await c.ctl.advance(120);
    const i = await show(id);
    assert.equal(i.intended_status, 'stopped');
    assert.notEqual(i.actual_status, 'running');
  });
  test('costs accrue on the sim clock: compute while running, storage always', async () => {
    await c.ctl.setAccount({ credit: 100 });
    const offer = await anOffer(c);
    const id = (await create(offer.id, { image: 'ubuntu', disk: 100 })).json.new_contract;
    await c.ctl.finishBoot(id);
    const i = await show(id);
    await c.ctl.advance(3600);
    const credit1 = (await c.call('GET', '/api/v0/users/current/')).json.credit;
    assert.ok(Math.abs(100 - credit1 - i.dph_total) < 0.01, `${100 - credit1} vs ${i.dph_total}`);
    await c.call('PUT', `/api/v0/instances/${id}/`, { state: 'stopped' });
    await c.ctl.advance(3600);
    const credit2 = (await c.call('GET', '/api/v0/users/current/')).json.credit;
    assert.ok(Math.abs(credit1 - credit2 - i.storage_cost) < 0.001);
    assert.ok(Math.abs((await show(id)).credit_balance - credit2) < 0.001);
  });
  test('show-instance rate limit: 429 {detail}; the v0 list is not limited', async () => {
    await c.ctl.setRateLimits({ show: 2 });
    const offer = await anOffer(c);
    const id = (await create(offer.id, { image: 'ubuntu' })).json.new_contract;
    await c.ctl.advance(5);
    assert.equal((await c.call('GET', `/api/v0/instances/${id}/`)).status, 200);
    const r = await c.call('GET', `/api/v0/instances/${id}/`);
    assert.equal(r.status, 429);
    assert.deepEqual(r.json, { detail: 'API requests too frequent endpoint threshold=2.0' });
    for (let i = 0; i < 10; i++) assert.equal((await c.call('GET', '/api/v0/instances/')).status, 200);
    await c.ctl.advance(2.1);
    assert.equal((await c.call('GET', `/api/v0/instances/${id}/`)).status, 200);
  });
  test('http faults, slow after acting, malformed, reset, request log', async () => {
    await c.ctl.fault({ kind: 'http_error', status: 503, path: '/api/v0/instances', count: 2 });
    assert.equal((await c.call('GET', '/api/v0/instances/')).status, 503);
    assert.equal((await c.call('GET', '/api/v0/users/current/')).status, 200);
    assert.equal((await c.call('GET', '/api/v0/instances/')).status, 503);
    assert.equal((await c.call('GET', '/api/v0/instances/')).status, 200);
    const offer = await anOffer(c);
    await c.ctl.fault({ kind: 'slow', ms: 500, path: '/asks/' });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(
      fetch(`${c.sim.url}/api/v0/asks/${offer.id}/`, {
        method: 'PUT',
        signal: ac.signal,
        headers: { Authorization: 'Bearer sim-api-key' },
        body: '{"image":"u"}',
      }),
    );
    assert.equal((await c.call('GET', '/api/v0/instances/')).json.instances_found, 1, 'created despite the timeout');
    await c.ctl.fault({ kind: 'malformed' });
    const m = await c.call('GET', '/api/v0/instances/');
    assert.equal(typeof m.json, 'string');
    await c.ctl.fault({ kind: 'reset', path: '/users/current' });
    await assert.rejects(fetch(`${c.sim.url}/api/v0/users/current/`, { headers: { Authorization: 'Bearer sim-api-key' } }));
    const log = await c.ctl.requests();
    assert.deepEqual(
      log.slice(0, 3).map((e) => [e.method, e.status]),
      [
        ['GET', 503],
        ['GET', 200],
        ['GET', 503],
      ],
    );
    assert.ok(log.some((e) => e.status === 0 && e.path === '/api/v0/users/current/'));
    assert.ok(!log.some((e) => e.path.startsWith('/_sim')));
    await c.ctl.fault({ kind: 'http_error', status: 429 });
    assert.deepEqual((await c.call('GET', '/api/v0/instances/')).json, { detail: 'API requests too frequent' });
  });
  test('a reset drops an answer a slow fault still holds back: its connection closes, nothing is logged, nothing waits', { timeout: 10_000 }, async () => {
    await c.ctl.reset();
    await c.ctl.fault({ kind: 'slow', ms: 60_000, path: '/users/current' });
    const held = fetch(`${c.sim.url}/api/v0/users/current/`, { headers: { Authorization: 'Bearer sim-api-key' } });
    await waitFor(() => c.sim.state.faults.length === 0, 5000, 'the request took the slow fault');
    await c.ctl.reset();
    await assert.rejects(held); // closed at once, not after a minute (the test's timeout)
    assert.deepEqual(await c.ctl.requests(), [], 'the dropped answer is not in the fresh log');
    assert.equal((await c.call('GET', '/api/v0/users/current/')).status, 200);
  });
  test('a reset does not reuse price-increase ids: a client that remembers the ones it showed sees the next one as new', async () => {
    const increase = async () => {
      await c.ctl.reset();
      await c.ctl.seed({ instances: 1 });
      const [inst] = (await c.call('GET', '/api/v0/instances/')).json.instances;
      return c.ctl.priceIncrease(inst.id);
    };
    const before = await increase();
    const after = await increase();
    assert.ok(after > before, `the increase after the reset has id ${after}, the one before ${before}`);
  });
  test('seed and seeded instances are running', async () => {
    const r = await c.ctl.seed({ offers: 50, instances: 3 });
    assert.equal(r.instances, 3);
    const l = await c.call('GET', '/api/v0/instances/');
    assert.equal(l.json.instances_found, 3);
    assert.ok(l.json.instances.every((i: any) => i.actual_status === 'running'));
    // The seed's service has no v1 list: a web server's plain 404, not a JSON error.
    const v1 = await c.call('GET', '/api/v1/instances/?limit=2');
    assert.equal(v1.status, 404);
    assert.equal(v1.json, 'Not Found');
    assert.match(v1.type ?? '', /^text\/plain/);
  });
});

test('a client written from the official CLI shapes works end to end', async () => {
  const base = c.sim.url;
  const q = 'api_key=sim-api-key';
  const j = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}${q}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(r.headers.get('content-type'), 'application/json');
    return { status: r.status, json: (await r.json()) as any };
  };
  const s = await j('POST', '/api/v0/bundles', {
    verified: { eq: true },
    external: { eq: false },
    rentable: { eq: true },
    num_gpus: { eq: '1' },
    gpu_ram: { gte: '8000.0' },
    order: [['score', 'desc']],
    type: 'on-demand',
    allocated_storage: 5.0,
  });
  assert.equal(s.status, 200);
  const offer = s.json.offers[0];
  assert.equal(offer.num_gpus, 1);
  const cr = await j('PUT', `/api/v0/asks/${offer.id}`, {
    client_id: 'me',
    image: 'pytorch/pytorch',
    env: { '-p 8888:8888': '1' },
    price: null,
    disk: 10,
    label: null,
    extra: null,
    onstart: null,
    image_login: null,
    python_utf8: false,
    lang_utf8: false,
    use_jupyter_lab: false,
    jupyter_dir: null,
    force: false,
    cancel_unavail: null,
    template_hash_id: null,
    runtype: 'ssh_direc ssh_proxy',
    args_str: null,
  });
  assert.equal(cr.status, 200, brief(cr.json));
  const id = cr.json.new_contract;
  await c.ctl.advance(61);
  assert.equal((await j('GET', `/api/v0/instances/${id}`)).json.instances.actual_status, 'running');
  assert.equal((await j('GET', '/api/v0/instances?owner=me')).json.instances[0].id, id);
  assert.equal((await j('PUT', `/api/v0/instances/${id}`, { state: 'stopped' })).json.success, true);
  assert.equal((await j('PUT', `/api/v0/instances/${id}`, { state: 'running' })).json.success, true);
  assert.equal((await j('PUT', `/api/v0/instances/${id}`, { label: 'cli' })).json.success, true);
  assert.equal((await j('GET', `/api/v0/instances/${id}`)).json.instances.label, 'cli');
  assert.equal((await j('DELETE', `/api/v0/instances/${id}`, {})).json.success, true);
  assert.equal((await j('GET', '/api/v0/tfa/status')).json.tfa_enabled, false);
});

test('CLI entry prints the listening line first and stops on SIGTERM', async () => {
  const script = join(process.cwd(), 'dist', 'sim.js');
  const p = spawn(process.execPath, [script, '--port', '0', '--seed', '3', '--test-control'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    p.on('exit', (code) => reject(new Error(`exited ${code}`)));
    setTimeout(() => reject(new Error('no listening line')), 5000).unref();
  });
  assert.match(line, /^listening on http:\/\/127\.0\.0\.1:\d+$/);
  const url = line.slice('listening on '.length);
  const r = await fetch(`${url}/api/v0/users/current/`, { headers: { Authorization: 'Bearer sim-api-key' } });
  assert.equal(r.status, 200);
  const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
  p.kill('SIGTERM');
  assert.equal(await exited, 0);
});
