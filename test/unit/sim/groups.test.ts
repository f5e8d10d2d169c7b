// Several machines for one job on the simulator (service-today.md section 11): offers in physical
// clusters and the cluster_id filter, overlay networks (create, list, join, delete) with their
// refusals, joining at creation with "-n NAME", bulk create (not all-or-nothing) and bulk update,
// the spend rate over every member, and the per-member boot faults.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brief, useSim, type Ctx } from './helpers';
import { generateEd25519 } from '../../../src/ssh/keygen';

let c: Ctx;
useSim((x) => (c = x), { era: 'today' });

const search = (q: Record<string, unknown>) => c.call('POST', '/api/v0/bundles/', q);
const create = (offerId: number, body: Record<string, unknown> = {}) =>
  c.call('PUT', `/api/v0/asks/${offerId}/`, { image: 'sim/base:1', runtype: 'ssh_direct', ...body });
const overlays = async () => (await c.call('GET', '/api/v0/overlay/')).json as Array<Record<string, any>>;

/** The free offers of one cluster, cheapest first (the search as the CLI sends `cluster_id=N`). */
async function clusterOffers(clusterId: number): Promise<Array<Record<string, any>>> {
  const r = await search({ cluster_id: { eq: String(clusterId) }, order: [['dph_total', 'asc']], limit: 64 });
  assert.equal(r.status, 200, brief(r.json));
  return r.json.offers;
}

/** A cluster id with at least n free offers, and its offers. */
async function aCluster(n = 8): Promise<{ id: number; offers: Array<Record<string, any>> }> {
  const r = await search({ cluster_id: { neq: null }, limit: 64 });
  const ids = [...new Set((r.json.offers as Array<{ cluster_id: number }>).map((o) => o.cluster_id))];
  for (const id of ids) {
    const offers = await clusterOffers(id);
    if (offers.length >= n) return { id, offers };
  }
  throw new Error(`no cluster with ${n} free offers`);
}

describe('offers in physical clusters', () => {
  test('a few clusters hold enough offers for a group of 8; most offers have no cluster_id; both search forms filter', async () => {
    const all = (await search({ limit: 1000 })).json.offers as Array<{ cluster_id: number | null }>;
    const clustered = all.filter((o) => o.cluster_id !== null);
    assert.ok(clustered.length > 0 && clustered.length < all.length / 2, `${clustered.length} of ${all.length} offers in clusters`);
    const byCluster = new Map<number, number>();
    for (const o of clustered) byCluster.set(o.cluster_id!, (byCluster.get(o.cluster_id!) ?? 0) + 1);
    assert.ok(byCluster.size >= 2, 'several physical clusters');
    for (const [id, n] of byCluster) assert.ok(n >= 8, `cluster ${id} has ${n} offers`);

    // `cluster_id!=None` as the CLI sends it (None becomes JSON null), in the body and as GET ?q=
    const some = (await search({ cluster_id: { neq: null }, limit: 1000 })).json.offers as Array<{ cluster_id: number | null }>;
    assert.equal(some.length, clustered.length);
    const q = encodeURIComponent(JSON.stringify({ cluster_id: { neq: null }, limit: 1000 }));
    const viaGet = await c.call('GET', `/api/v0/bundles/?q=${q}`);
    assert.equal(viaGet.json.offers.length, clustered.length);
    const none = (await search({ cluster_id: { eq: null }, limit: 1000 })).json.offers;
    assert.equal(none.length, all.length - clustered.length);
    // `cluster_id=N` (a string from the CLI) and the wrapped {"q": ...} form
    const [first] = [...byCluster.keys()];
    const one = (await search({ cluster_id: { eq: String(first) }, limit: 1000 })).json.offers as Array<{ cluster_id: number; gpu_name: string }>;
    assert.equal(one.length, byCluster.get(first!));
    assert.ok(
      one.every((o) => o.cluster_id === first && o.gpu_name === one[0]!.gpu_name),
      'one kind of machine per cluster',
    );
    const wrapped = await c.call('PUT', '/api/v0/bundles/', { select_cols: ['*'], q: { cluster_id: { eq: first }, limit: 1000 } });
    assert.equal(wrapped.json.offers.length, one.length);
  });
});

describe('overlay networks', () => {
  test('create, list with subnet and members, join by PUT and at creation with "-n NAME", delete destroys the members', async () => {
    const cl = await aCluster(3);
    const made = await c.call('POST', '/api/v0/overlay/', { cluster_id: cl.id, name: 'job-a' });
    assert.equal(made.status, 200, brief(made.json));
    assert.equal(typeof made.json.msg, 'string');
    let [ov] = await overlays();
    assert.equal(ov!.name, 'job-a');
    assert.equal(ov!.cluster_id, cl.id);
    assert.match(ov!.subnet, /^127\.\d+\.\d+\.0\/24$/);
    assert.equal(ov!.internal_subnet, ov!.subnet);
    assert.deepEqual([ov!.instance_count, ov!.instances], [0, []]);

    const a = await create(cl.offers[0]!.id, { env: { '-n job-a': '1' } });
    assert.equal(a.status, 200, brief(a.json));
    const b = await create(cl.offers[1]!.id);
    assert.equal(b.status, 200, brief(b.json));
    const joined = await c.call('PUT', '/api/v0/overlay/', { name: 'job-a', instance_id: b.json.new_contract });
    assert.equal(joined.status, 200, brief(joined.json));
    assert.equal(typeof joined.json.msg, 'string');
    [ov] = await overlays();
    assert.deepEqual(ov!.instances, [a.json.new_contract, b.json.new_contract]);
    assert.equal(ov!.instance_count, 2);
    const addrs = [a, b].map((r) => c.sim.state.instances.get(r.json.new_contract)!.overlay!.addr);
    assert.notEqual(addrs[0], addrs[1], 'each member its own address');
    for (const addr of addrs) assert.equal(addr.split('.').slice(0, 3).join('.'), ov!.subnet.split('.').slice(0, 3).join('.'));

    const other = await create(cl.offers[2]!.id);
    const del = await c.call('DELETE', '/api/v0/overlay/', { overlay_name: 'job-a' });
    assert.equal(del.status, 200, brief(del.json));
    assert.deepEqual(await overlays(), []);
    for (const r of [a, b]) assert.deepEqual((await c.call('GET', `/api/v0/instances/${r.json.new_contract}/`)).json, { instances: null }, 'members destroyed');
    assert.equal((await c.call('GET', `/api/v0/instances/${other.json.new_contract}/`)).json.instances.id, other.json.new_contract, 'others untouched');
    // by id as well
    await c.call('POST', '/api/v0/overlay/', { cluster_id: cl.id, name: 'job-b' });
    const id = (await overlays())[0]!.overlay_id;
    assert.equal((await c.call('DELETE', '/api/v0/overlay/', { overlay_id: id })).status, 200);
    assert.equal((await c.call('DELETE', '/api/v0/overlay/', { overlay_id: id })).json.error, 'no_such_overlay');
  });

  test('refusals: a name taken, a cluster without offers, unknown names and ids, a machine outside the cluster (nothing created), read-only keys', async () => {
    const cl = await aCluster(2);
    assert.equal((await c.call('POST', '/api/v0/overlay/', { cluster_id: cl.id, name: 'net' })).status, 200);
    const taken = await c.call('POST', '/api/v0/overlay/', { cluster_id: cl.id, name: 'net' });
    assert.deepEqual([taken.status, taken.json.error], [400, 'overlay_name_taken']);
    const noCluster = await c.call('POST', '/api/v0/overlay/', { cluster_id: 999999, name: 'x' });
    assert.deepEqual([noCluster.status, noCluster.json.error], [404, 'no_such_cluster']);
    const badName = await c.call('POST', '/api/v0/overlay/', { cluster_id: cl.id, name: 'a b; rm -rf /' });
    assert.deepEqual([badName.status, badName.json.error], [400, 'invalid_args']);
    assert.equal((await c.call('POST', '/api/v0/overlay/', { name: 'y' })).json.error, 'invalid_args');
    assert.equal((await c.call('DELETE', '/api/v0/overlay/', { overlay_name: 'nope' })).json.error, 'no_such_overlay');
    assert.equal((await c.call('DELETE', '/api/v0/overlay/', {})).json.error, 'invalid_args');
    assert.equal((await c.call('PUT', '/api/v0/overlay/', { name: 'nope', instance_id: 1 })).json.error, 'no_such_overlay');
    assert.equal((await c.call('PUT', '/api/v0/overlay/', { name: 'net', instance_id: 424242 })).json.error, 'no_such_instance');

    // a machine outside the overlay's cluster: the create fails with a clear error and nothing is created
    const outside = (await search({ cluster_id: { eq: null }, verified: { eq: true }, rentable: { eq: true }, limit: 1 })).json.offers[0];
    const before = c.sim.state.instances.size;
    const refused = await create(outside.id, { env: { '-n net': '1' } });
    assert.deepEqual([refused.status, refused.json.error, refused.json.ask_id], [400, 'overlay_cluster_mismatch', outside.id]);
    assert.match(refused.json.msg, new RegExp(`cluster_id=${cl.id}`));
    assert.equal(c.sim.state.instances.size, before, 'nothing created');
    assert.equal((await create(outside.id, { env: { '-n nope': '1' } })).json.error, 'no_such_overlay');
    assert.equal(c.sim.state.instances.size, before, 'nothing created');
    // joined later by PUT: refused the same way
    const plain = await create(outside.id);
    const putRefused = await c.call('PUT', '/api/v0/overlay/', { name: 'net', instance_id: plain.json.new_contract });
    assert.deepEqual([putRefused.status, putRefused.json.error], [400, 'overlay_cluster_mismatch']);
    // a VM never joins (with an account key, so only the overlay refuses it)
    assert.equal((await c.call('POST', '/api/v0/ssh/', { ssh_key: generateEd25519('t').public })).status, 200);
    const vm = await create(cl.offers[0]!.id, { env: { '-n net': '1' }, vm: true });
    assert.equal(vm.json.error, 'overlay_vm_unsupported');

    const ro = await c.call('POST', '/api/v0/overlay/', { cluster_id: cl.id, name: 'ro' }, 'sim-read-only-key');
    assert.equal(ro.status, 403);
    assert.equal((await c.call('GET', '/api/v0/overlay/', undefined, 'sim-read-only-key')).status, 200);
  });
});

describe('bulk calls', () => {
  test('bulk create succeeds when at least one is created, answers per offer, 400 when all fail, at most 64', async () => {
    const cl = await aCluster(3);
    await c.call('POST', '/api/v0/overlay/', { cluster_id: cl.id, name: 'bulk' });
    const gone = cl.offers[2]!.id;
    await c.ctl.fault({ kind: 'offer_taken', offerId: gone });
    const r = await c.call('POST', '/api/v0/asks/bulk/', {
      ids: [cl.offers[0]!.id, gone, cl.offers[1]!.id],
      image: 'sim/base:1',
      runtype: 'ssh_direct',
      env: { '-n bulk': '1' },
    });
    assert.equal(r.status, 200, brief(r.json));
    assert.equal(r.json.success, true);
    assert.deepEqual([r.json.created, r.json.failed], [2, 1]);
    assert.equal(typeof r.json.elapsed, 'number');
    const [ok1, bad, ok2] = r.json.results;
    assert.deepEqual([ok1.ask_id, ok1.success, typeof ok1.new_contract, ok1.state], [cl.offers[0]!.id, true, 'number', 'running']);
    assert.deepEqual([bad.ask_id, bad.success, bad.error, typeof bad.msg], [gone, false, 'no_such_ask', 'string']);
    assert.equal(ok2.success, true);
    assert.deepEqual(
      (await overlays())[0]!.instances,
      [ok1.new_contract, ok2.new_contract].sort((x, y) => x - y),
    );

    const allFail = await c.call('POST', '/api/v0/asks/bulk/', { ids: [gone, 999999], image: 'sim/base:1' });
    assert.deepEqual([allFail.status, allFail.json.success, allFail.json.created, allFail.json.failed], [400, false, 0, 2]);
    const tooMany = await c.call('POST', '/api/v0/asks/bulk/', { ids: Array.from({ length: 65 }, (_, i) => i + 1), image: 'sim/base:1' });
    assert.deepEqual([tooMany.status, tooMany.json.error], [400, 'invalid_args']);
    assert.equal((await c.call('POST', '/api/v0/asks/bulk/', { ids: [cl.offers[0]!.id], image: 'x' }, 'sim-read-only-key')).status, 403);
  });

  test('bulk PUT /api/v0/instances/ stops, starts and labels up to 64; an unknown id changes nothing', async () => {
    const cl = await aCluster(2);
    const ids = [(await create(cl.offers[0]!.id)).json.new_contract, (await create(cl.offers[1]!.id)).json.new_contract];
    const stop = await c.call('PUT', '/api/v0/instances/', { ids, state: 'stopped' });
    assert.equal(stop.status, 200, brief(stop.json));
    assert.ok(ids.every((id) => c.sim.state.instances.get(id)!.intended === 'stopped'));
    const unknown = await c.call('PUT', '/api/v0/instances/', { ids: [ids[0], 987654], state: 'running' });
    assert.deepEqual([unknown.status, unknown.json.error], [404, 'no_such_instance']);
    assert.equal(c.sim.state.instances.get(ids[0])!.intended, 'stopped', 'nothing changed');
    assert.equal((await c.call('PUT', '/api/v0/instances/', { ids, state: 'running' })).status, 200);
    assert.ok(ids.every((id) => c.sim.state.instances.get(id)!.intended === 'running'));
    assert.equal((await c.call('PUT', '/api/v0/instances/', { ids, label: 'grp' })).status, 200);
    assert.ok(ids.every((id) => c.sim.state.instances.get(id)!.label === 'grp'));
    assert.equal((await c.call('PUT', '/api/v0/instances/', { ids: Array.from({ length: 65 }, () => ids[0]), state: 'stopped' })).status, 400);
    assert.equal((await c.call('PUT', '/api/v0/instances/', { ids })).status, 400);
  });

  test('the spend rate counts every member', async () => {
    const cl = await aCluster(3);
    const r = await c.call('POST', '/api/v0/asks/bulk/', { ids: cl.offers.slice(0, 3).map((o) => o.id), image: 'sim/base:1', disk: 10 });
    assert.equal(r.json.created, 3);
    const rate = (await c.call('GET', '/api/v0/users/spend-rate/')).json;
    const gpu = cl.offers.slice(0, 3).reduce((s, o) => s + (o.dph_base as number), 0);
    assert.ok(Math.abs(rate.gpu_cost_per_hour - gpu) < 1e-4, `${rate.gpu_cost_per_hour} vs ${gpu}`);
    const disk = cl.offers.slice(0, 3).reduce((s, o) => s + (10 * (o.storage_cost as number)) / 730, 0);
    assert.ok(Math.abs(rate.container_storage_cost_per_hour - disk) < 1e-4);
  });
});

test('the seed era has no clusters, overlays or bulk calls (plain 404), and cluster_id is an unknown search field', async () => {
  await c.ctl.setEra('seed');
  for (const [method, path] of [
    ['GET', '/api/v0/overlay/'],
    ['POST', '/api/v0/overlay/'],
    ['POST', '/api/v0/asks/bulk/'],
    ['PUT', '/api/v0/instances/'],
  ]) {
    const r = await c.call(method!, path!, method === 'GET' ? undefined : {});
    assert.deepEqual([r.status, r.json], [404, 'Not Found'], `${method} ${path}`);
  }
  const all = (await search({ limit: 1000 })).json.offers as Array<Record<string, unknown>>;
  const filtered = (await search({ cluster_id: { neq: null }, limit: 1000 })).json.offers as unknown[];
  assert.equal(filtered.length, all.length, 'the filter is ignored');
  assert.ok(all.every((o) => !('cluster_id' in o)));
});

describe('per-member boot faults', () => {
  test('the Nth member fails, never boots, boots slowly or shows up late; the others boot normally', async () => {
    const cl = await aCluster(5);
    await c.ctl.fault({ kind: 'boot', mode: 'fail', skip: 1 });
    await c.ctl.fault({ kind: 'boot', mode: 'never', skip: 2 });
    await c.ctl.fault({ kind: 'boot', mode: 'slow', seconds: 600, skip: 3 });
    await c.ctl.fault({ kind: 'boot', mode: 'late', seconds: 300, offerId: cl.offers[4]!.id });
    const r = await c.call('POST', '/api/v0/asks/bulk/', { ids: cl.offers.slice(0, 5).map((o) => o.id), image: 'sim/base:1', runtype: 'ssh_direct' });
    const ids = (r.json.results as Array<{ new_contract: number }>).map((x) => x.new_contract);
    const status = async (id: number) => (await c.call('GET', `/api/v0/instances/${id}/`)).json.instances?.actual_status ?? 'invisible';
    assert.equal(await status(ids[4]!), 'invisible', 'late: not shown yet');
    await c.ctl.advance(120);
    assert.deepEqual(await Promise.all(ids.map(status)), ['running', 'exited', 'loading', 'loading', 'invisible']);
    await c.ctl.advance(600);
    assert.deepEqual(await Promise.all(ids.map(status)), ['running', 'exited', 'loading', 'running', 'running']);
    assert.match((await c.call('GET', `/api/v0/instances/${ids[1]}/`)).json.instances.status_msg, /^Error: container exited/);
    const rate = (await c.call('GET', '/api/v0/users/spend-rate/')).json;
    const billed = [0, 3, 4].reduce((s, i) => s + (cl.offers[i]!.dph_base as number), 0);
    assert.ok(Math.abs(rate.gpu_cost_per_hour - billed) < 1e-4, 'a member that failed or never booted bills no compute');
    assert.equal((await c.ctl.fault({ kind: 'boot', mode: 'sideways' as 'fail' }).catch((e: Error) => e.message))?.includes('mode'), true);
  });
});
