// The simulator's `today` era: the live service as service-today.md describes it (v1 list with
// every parameter and error, 410 on the v0 list, null for gone ids, 404 auth_error, read-after-
// create lag, SSH port layout, per-endpoint rate limits, creation and search differences).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anOffer, brief, useSim, type Ctx } from './helpers';
import { sshListenAddress } from '../../../src/sim';

let c: Ctx;
useSim((x) => (c = x), { era: 'today', invisibleSeconds: 3 });

const create = (offerId: number, body: Record<string, unknown>) => c.call('PUT', `/api/v0/asks/${offerId}/`, body);
const v1 = (query: Record<string, unknown> = {}) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) q.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  return c.call('GET', `/api/v1/instances/?${q.toString()}`);
};

/** Creates n instances through the API and lets them become visible. */
async function createMany(n: number, label = (i: number) => `job-${i % 3}`): Promise<number[]> {
  const offers = (await c.call('POST', '/api/v0/bundles/', { limit: n })).json.offers as Array<{ id: number }>;
  assert.ok(offers.length >= n, 'enough offers');
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await create(offers[i]!.id, { image: 'ubuntu', label: label(i) });
    assert.equal(r.status, 200, brief(r.json));
    ids.push(r.json.new_contract);
  }
  await c.ctl.advance(5);
  return ids;
}

describe('v0 paths of the live service', () => {
  test('the v0 list answers 410 deprecated_endpoint', async () => {
    const r = await c.call('GET', '/api/v0/instances/');
    assert.equal(r.status, 410);
    assert.deepEqual(r.json, {
      success: false,
      error: 'deprecated_endpoint',
      msg: '/api/v0/instances/ is deprecated. Use /api/v1/instances/ instead.',
    });
  });

  test('show of a destroyed or unknown id answers {"instances": null}', async () => {
    const [id] = await createMany(1);
    assert.equal((await c.call('GET', `/api/v0/instances/${id}/`)).json.instances.id, id);
    assert.equal((await c.call('DELETE', `/api/v0/instances/${id}/`)).status, 200);
    assert.deepEqual((await c.call('GET', `/api/v0/instances/${id}/`)).json, { instances: null });
    assert.deepEqual((await c.call('GET', '/api/v0/instances/987654/')).json, { instances: null });
  });

  test('a bad key on instance paths is 404 auth_error; elsewhere 401', async () => {
    for (const path of ['/api/v0/instances/1/', '/api/v1/instances/']) {
      const r = await c.call('GET', path, undefined, 'wrong-key');
      assert.equal(r.status, 404, path);
      assert.equal(r.json.error, 'auth_error', path);
    }
    const u = await c.call('GET', '/api/v0/users/current/', undefined, 'wrong-key');
    assert.equal(u.status, 401);
    assert.equal(u.json.error, 'auth_error');
  });

  test('a new instance is invisible to show and list for its first seconds', async () => {
    const offer = await anOffer(c);
    const id = (await create(offer.id, { image: 'ubuntu', label: 'fresh' })).json.new_contract as number;
    assert.deepEqual((await c.call('GET', `/api/v0/instances/${id}/`)).json, { instances: null });
    assert.equal((await v1()).json.total_instances, 0);
    await c.ctl.advance(3);
    assert.equal((await c.call('GET', `/api/v0/instances/${id}/`)).json.instances.id, id);
    assert.deepEqual(
      (await v1()).json.instances.map((i: { id: number }) => i.id),
      [id],
    );
  });

  test('the era flips at run time: seed answers the v0 list and has no v1', async () => {
    await createMany(2);
    await c.ctl.setEra('seed');
    assert.equal((await c.call('GET', '/api/v0/instances/')).json.instances_found, 2);
    const r = await v1();
    assert.equal(r.status, 404);
    assert.equal(r.json, 'Not Found');
    assert.deepEqual((await c.call('GET', '/api/v0/instances/1/')).json, { instances: {} });
    await c.ctl.setEra('today');
    assert.equal((await c.call('GET', '/api/v0/instances/')).status, 410);
  });
});

describe('GET /api/v1/instances/', () => {
  test('pages of 25 by default, capped at 25, a limit <= 0 gives 5; total, found and the last page', async () => {
    await c.ctl.seed({ instances: 30 });
    const first = await v1();
    assert.equal(first.status, 200);
    assert.equal(first.json.success, true);
    assert.equal(first.json.instances.length, 25);
    assert.equal(first.json.instances_found, 25);
    assert.equal(first.json.total_instances, 30);
    assert.equal(typeof first.json.next_token, 'string');
    assert.equal((await v1({ limit: 100 })).json.instances.length, 25);
    assert.equal((await v1({ limit: 0 })).json.instances.length, 5);
    assert.equal((await v1({ limit: -3 })).json.instances.length, 5);
    assert.equal((await v1({ limit: 'ten' })).status, 400);
    const last = await v1({ after_token: first.json.next_token });
    assert.equal(last.json.instances.length, 5);
    assert.equal(last.json.next_token, null);
    const ids = [...first.json.instances, ...last.json.instances].map((i: { id: number }) => i.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    assert.equal(new Set(ids).size, 30);
  });

  test('errors: bad token, unknown order column, computed or unknown filter column, bad JSON', async () => {
    await c.ctl.seed({ instances: 3 });
    for (const [q, what] of [
      [{ after_token: 'not-a-token' }, /after_token/],
      [{ order_by: [{ col: 'no_such_col', dir: 'asc' }] }, /order_by/],
      [{ select_filters: { dph_total: { lt: 1 } } }, /computed/],
      [{ select_filters: { num_gpus: { eq: 1 } } }, /computed/],
      [{ select_filters: { no_such_col: { eq: 1 } } }, /unknown column/],
      [{ select_filters: { label: { like: 'x' } } }, /operator/],
      [{ select_cols: '[broken' }, /not valid JSON/],
    ] as const) {
      const r = await v1(q as Record<string, unknown>);
      assert.equal(r.status, 400, JSON.stringify(q));
      assert.match(r.json.msg, what);
    }
  });

  test('order_by: desc, asc for any other dir, id as the tie-breaker; the token follows the order', async () => {
    await createMany(6, (i) => `l${i % 2}`);
    const desc = await v1({ order_by: [{ col: 'id', dir: 'desc' }], limit: 4 });
    const descIds = desc.json.instances.map((i: { id: number }) => i.id);
    assert.deepEqual(
      descIds,
      [...descIds].sort((a: number, b: number) => b - a),
    );
    const rest = await v1({ order_by: [{ col: 'id', dir: 'desc' }], limit: 4, after_token: desc.json.next_token });
    assert.equal(rest.json.instances.length, 2);
    assert.ok(rest.json.instances.every((i: { id: number }) => i.id < descIds[3]));
    const byLabel = await v1({ order_by: [{ col: 'label', dir: 'sideways' }] });
    const rows = byLabel.json.instances.map((i: { id: number; label: string }) => [i.label, i.id]);
    assert.deepEqual(
      rows,
      [...rows].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])),
    );
  });

  test('select_cols trims the rows (unknown names null); select_filters by label, id, in; label_counts', async () => {
    const ids = await createMany(5, (i) => (i < 3 ? 'train' : i === 3 ? 'eval' : ''));
    const trimmed = await v1({ select_cols: ['id', 'label', 'no_such_col'] });
    assert.deepEqual(trimmed.json.instances[0], { id: ids[0], label: 'train', no_such_col: null });
    const train = await v1({ select_filters: { label: { eq: 'train' } } });
    assert.equal(train.json.total_instances, 3);
    assert.deepEqual(train.json.label_counts, { train: 3 });
    const one = await v1({ select_filters: { id: { eq: ids[4] } }, limit: 1 });
    assert.deepEqual(
      one.json.instances.map((i: { id: number }) => i.id),
      [ids[4]],
    );
    const some = await v1({ select_filters: { id: { in: [ids[0], ids[2]] }, actual_status: { neq: 'exited' } } });
    assert.equal(some.json.instances.length, 2);
    const all = await v1();
    assert.deepEqual(all.json.label_counts, { train: 3, eval: 1, '': 1 });
    // rows carry the live shapes: extra_env pairs, composite runtype
    assert.ok(Array.isArray(all.json.instances[0].extra_env));
    assert.match(all.json.instances[0].image_runtype, /ssh/);
  });

  test('a walk stays consistent while an instance is created and one destroyed mid-walk', async () => {
    await c.ctl.seed({ instances: 30 });
    const p1 = await v1({ limit: 10 });
    const seen = p1.json.instances.map((i: { id: number }) => i.id);
    // destroy one not yet read, create a new one (it sorts last)
    const victim = (await v1({ limit: 1, after_token: p1.json.next_token })).json.instances[0].id;
    await c.call('DELETE', `/api/v0/instances/${victim}/`);
    const offer = await anOffer(c);
    const fresh = (await create(offer.id, { image: 'ubuntu' })).json.new_contract;
    await c.ctl.advance(4);
    let token = p1.json.next_token;
    while (token) {
      const p = await v1({ limit: 10, after_token: token });
      seen.push(...p.json.instances.map((i: { id: number }) => i.id));
      token = p.json.next_token;
    }
    assert.equal(new Set(seen).size, seen.length, 'no row twice');
    assert.ok(!seen.includes(victim));
    assert.ok(seen.includes(fresh));
    assert.equal(seen.length, 30);
  });
});

describe('SSH port layout', () => {
  test('direct instances carry ports["22/tcp"] and a loopback public_ipaddr; Jupyter-proxy SSH is on ssh_port + 1', async () => {
    const offers = (await c.call('POST', '/api/v0/bundles/', { direct_port_count: { gte: 10 }, limit: 3 })).json.offers;
    const mk = async (o: { id: number }, runtype: string) => (await create(o.id, { image: 'ubuntu', runtype })).json.new_contract as number;
    const direct = await mk(offers[0], 'ssh_direct');
    const jproxy = await mk(offers[1], 'jupyter_proxy');
    const jdirect = await mk(offers[2], 'jupyter_direct');
    await c.ctl.advance(120);
    const show = async (id: number) => (await c.call('GET', `/api/v0/instances/${id}/`)).json.instances;
    const d = await show(direct);
    assert.equal(d.public_ipaddr, '127.0.0.1');
    const hostPort = Number(d.ports['22/tcp'][0].HostPort);
    assert.ok(hostPort > 0);
    assert.deepEqual(sshListenAddress(c.sim.state, c.sim.state.instances.get(direct)!), { host: '127.0.0.1', port: hostPort, direct: true });
    const jp = await show(jproxy);
    assert.equal(jp.ports['22/tcp'], undefined);
    assert.match(jp.image_runtype, /jupyter/);
    assert.deepEqual(sshListenAddress(c.sim.state, c.sim.state.instances.get(jproxy)!), { host: jp.ssh_host, port: jp.ssh_port + 1, direct: false });
    const jd = await show(jdirect);
    assert.ok(jd.ports['22/tcp'] && jd.ports['8080/tcp']);
    assert.equal(sshListenAddress(c.sim.state, c.sim.state.instances.get(jdirect)!)!.direct, true);
  });
});

describe('rate limits', () => {
  test('per endpoint and key, with the bodies the service sends', async () => {
    await c.ctl.setRateLimits('service');
    await c.ctl.seed({ instances: 2 });
    const id = (await v1()).json.instances[0].id;
    // list 1.0: plain text
    const list = await v1();
    assert.equal(list.status, 429);
    assert.equal(list.json, 'API requests too frequent endpoint threshold=1.0');
    assert.match(list.type ?? '', /^text\/plain/);
    // another key has its own budget
    assert.equal((await c.call('GET', '/api/v1/instances/', undefined, 'sim-read-only-key')).status, 200);
    // show 2.0: {detail}
    assert.equal((await c.call('GET', `/api/v0/instances/${id}/`)).status, 200);
    const show = await c.call('GET', `/api/v0/instances/${id}/`);
    assert.deepEqual([show.status, show.json], [429, { detail: 'API requests too frequent endpoint threshold=2.0' }]);
    // search 10 per minute: plain text
    assert.equal((await c.call('POST', '/api/v0/bundles/', { limit: 1 })).status, 200);
    assert.equal((await c.call('POST', '/api/v0/bundles/', { limit: 1 })).status, 429);
    // destroy 3.0: the error shape
    const others = (await c.call('GET', `/api/v0/instances/${id}/`)).status; // still limited
    assert.equal(others, 429);
    await c.ctl.advance(3.1);
    const ids = (await v1()).json.instances.map((i: { id: number }) => i.id);
    assert.equal((await c.call('DELETE', `/api/v0/instances/${ids[0]}/`)).status, 200);
    const d = await c.call('DELETE', `/api/v0/instances/${ids[1]}/`);
    assert.deepEqual([d.status, d.json.error], [429, 'rate_limit_exceeded']);
    // create 4.5 with a penalty after a violation
    const offers = (await c.call('POST', '/api/v0/bundles/', { limit: 3 }, 'sim-read-only-key')).json.offers;
    assert.equal((await create(offers[0].id, { image: 'u' })).status, 200);
    const tooSoon = await create(offers[1].id, { image: 'u' });
    assert.deepEqual([tooSoon.status, tooSoon.json.detail], [429, 'API requests too frequent endpoint threshold=4.5']);
    await c.ctl.advance(5);
    assert.equal((await create(offers[1].id, { image: 'u' })).status, 429, 'the penalty outlasts the threshold');
    await c.ctl.advance(14);
    assert.equal((await create(offers[1].id, { image: 'u' })).status, 200);
  });
});

describe('creation and search of the live service', () => {
  test('an unschedulable machine: 410 no_such_ask with cancel_unavail, a stopped instance without it', async () => {
    const offers = (await c.call('POST', '/api/v0/bundles/', { limit: 3 })).json.offers;
    for (const o of offers) await c.ctl.fault({ kind: 'offer_unschedulable', offerId: o.id });
    const fast = await create(offers[0].id, { image: 'u' }); // on-demand, running: cancel_unavail defaults to true
    assert.deepEqual([fast.status, fast.json.error, fast.json.ask_id], [410, 'no_such_ask', offers[0].id]);
    const waits = await create(offers[0].id, { image: 'u', cancel_unavail: false });
    assert.equal(waits.status, 200);
    const bid = await create(offers[1].id, { image: 'u', price: offers[1].min_bid + 0.01 }); // interruptible: defaults to false
    assert.equal(bid.status, 200);
    await c.ctl.advance(60);
    for (const id of [waits.json.new_contract, bid.json.new_contract]) {
      const i = (await c.call('GET', `/api/v0/instances/${id}/`)).json.instances;
      assert.equal(i.actual_status, 'stopped');
      assert.equal(i.intended_status, 'stopped');
      assert.ok(i.storage_cost > 0, 'storage keeps billing');
    }
  });

  test('creation errors carry ask_id: invalid_price, no_ssh_key_for_vm, own machine 403, 404 no_such_ask', async () => {
    const offers = (await c.call('POST', '/api/v0/bundles/', { limit: 3 })).json.offers;
    const low = await create(offers[0].id, { image: 'u', price: offers[0].min_bid / 10 });
    assert.deepEqual([low.status, low.json.error, low.json.ask_id], [400, 'invalid_price', offers[0].id]);
    for (const k of (await c.call('GET', '/api/v0/ssh/')).json as Array<{ id: number }>) await c.call('DELETE', `/api/v0/ssh/${k.id}/`);
    const vm = await create(offers[0].id, { image: 'u', vm: true });
    assert.deepEqual([vm.status, vm.json.error], [400, 'no_ssh_key_for_vm']);
    await c.ctl.fault({ kind: 'offer_own', offerId: offers[1].id });
    const own = await create(offers[1].id, { image: 'u' });
    assert.deepEqual([own.status, own.json.ask_id], [403, offers[1].id]);
    const gone = await create(999, { image: 'u', cancel_unavail: false });
    assert.deepEqual([gone.status, gone.json.error, gone.json.ask_id], [404, 'no_such_ask', 999]);
    assert.equal((await create(offers[2].id, { image: 'u' })).status, 200);
  });

  test('search prices allocated_storage into dph_total; a bad search is 400 invalid_request without success', async () => {
    const q = { limit: 5, order: [['id', 'asc']] };
    const small = (await c.call('POST', '/api/v0/bundles/', q)).json.offers;
    const big = (await c.call('POST', '/api/v0/bundles/', { ...q, allocated_storage: 500 })).json.offers;
    for (let i = 0; i < small.length; i++) {
      assert.equal(small[i].id, big[i].id);
      const expected = small[i].dph_base + (small[i].storage_cost * 500) / 730;
      assert.ok(Math.abs(big[i].dph_total - expected) < 1e-3, 'the quoted price includes the disk');
      assert.ok(big[i].dph_total > small[i].dph_total);
    }
    const bad = await c.call('POST', '/api/v0/bundles/', { allocated_storage: -1 });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'invalid_request');
    assert.equal('success' in bad.json, false);
  });

  test('the user record has balance and fullname beside credit and full_name', async () => {
    const u = (await c.call('GET', '/api/v0/users/current/')).json;
    assert.equal(u.balance, u.credit);
    assert.equal(u.fullname, u.full_name);
  });

  test('SMS-provider errors carry the provider name', async () => {
    await c.ctl.fault({ kind: 'tfa_error', error: 'sms_provider_error' });
    const a = await c.call('POST', '/api/v0/tfa/sms/', { phone_number: '+14155550123' });
    assert.deepEqual([a.status, a.json.error], [400, 'twilio_error']);
    await c.ctl.fault({ kind: 'tfa_error', error: 'twilio_rate_limited' });
    const b = await c.call('POST', '/api/v0/tfa/sms/', { phone_number: '+14155550123' });
    assert.deepEqual([b.status, b.json.error], [429, 'twilio_rate_limited']);
  });
});

test('the official CLI request shapes work: v1 walk with select_filters, show of a destroyed id is {"instances": null}', async () => {
  const base = c.sim.url;
  const j = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: 'Bearer sim-api-key', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(r.headers.get('content-type'), 'application/json');
    return { status: r.status, json: (await r.json()) as any };
  };
  const s = await j('POST', '/api/v0/bundles/', {
    verified: { eq: true },
    external: { eq: false },
    rentable: { eq: true },
    num_gpus: { eq: '1' },
    order: [['score', 'desc']],
    type: 'on-demand',
    allocated_storage: 5.0,
  });
  const offer = s.json.offers[0];
  const cr = await j('PUT', `/api/v0/asks/${offer.id}/`, {
    client_id: 'me',
    image: 'pytorch/pytorch',
    env: {},
    price: null,
    disk: 10,
    label: 'cli-job',
    extra: null,
    onstart: null,
    force: false,
    cancel_unavail: null,
    template_hash_id: null,
    runtype: 'ssh_direc ssh_proxy',
    args_str: null,
  });
  assert.equal(cr.status, 200, brief(cr.json));
  const id = cr.json.new_contract;
  await c.ctl.advance(61);
  // the CLI's `show instances`: pages of 25 until next_token is empty
  const q = new URLSearchParams({ select_filters: JSON.stringify({}), order_by: JSON.stringify([{ col: 'id', dir: 'asc' }]), limit: '25' });
  const page = await j('GET', `/api/v1/instances/?${q}`);
  assert.equal(page.json.instances[0].id, id);
  assert.equal(page.json.next_token, null);
  // the CLI's single-instance lookup
  const one = new URLSearchParams({ select_filters: JSON.stringify({ id: { eq: id } }), limit: '1' });
  assert.equal((await j('GET', `/api/v1/instances/?${one}`)).json.instances[0].label, 'cli-job');
  assert.equal((await j('GET', `/api/v0/instances/${id}/`)).json.instances.actual_status, 'running');
  assert.equal((await j('PUT', `/api/v0/instances/${id}/`, { state: 'stopped' })).json.success, true);
  assert.equal((await j('DELETE', `/api/v0/instances/${id}/`, {})).json.success, true);
  assert.deepEqual((await j('GET', `/api/v0/instances/${id}/`)).json, { instances: null });
});
