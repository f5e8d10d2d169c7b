// Price increases, charges and invoices: the client against the real simulator over loopback.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { closeApiTransport } from '../../../src/api/client';
import type { ServiceApi } from '../../../src/api/types';
import { API_KEY, rejection, startHarness, type Harness } from './helpers';

let h: Harness;
let api: ServiceApi;

before(async () => {
  h = await startHarness({ instances: 2 });
  api = h.client();
});
after(async () => {
  await h.close();
  await closeApiTransport();
});
beforeEach(async () => {
  await h.ctl.reset();
});

const ids = async () => (await api.listInstances()).instances.map((i) => i.id);

/** Raw PUT to the simulator, to see what the service answers to bodies the client never sends. */
async function rawPut(path: string, body: unknown): Promise<{ status: number; json: { error?: string } }> {
  const res = await fetch(`${h.sim.url}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { error?: string } };
}

test('price increase: listed with old and new costs and dates; accept sends exactly the id and raises the price', async () => {
  const [id] = await ids();
  const before = await api.showInstance(id!);
  const pid = await h.ctl.priceIncrease(id!, { gpuFactor: 1.5 });
  const list = await api.listPendingPriceIncreases();
  assert.equal(list.pending_price_increases.length, 1);
  const p = list.pending_price_increases[0]!;
  assert.equal(p.pending_price_increase_id, pid);
  assert.equal(p.contract_id, id);
  assert.ok(Math.abs(p.old_gpu_costpersec! * 3600 - before.dph_base!) < 1e-4, 'old GPU cost is the current rate per second');
  assert.ok(Math.abs(p.new_gpu_costpersec! / p.old_gpu_costpersec! - 1.5) < 1e-6);
  assert.equal(typeof p.old_disk_ram_costpersec, 'number');
  assert.equal(typeof p.new_bwd_cost, 'number');
  assert.equal(typeof p.old_platform_fee, 'number');
  assert.ok(p.contract_end_date! > p.created_at! && p.ask_end_date! > p.created_at!);

  const n = h.sim.state.requests.length;
  await api.acceptPriceIncrease(pid);
  const put = h.sim.state.requests.slice(n).find((r) => r.method === 'PUT');
  assert.equal(put?.path, '/api/v0/instances/accept-price-increase/');
  const after = await api.showInstance(id!);
  assert.ok(Math.abs(after.dph_base! - before.dph_base! * 1.5) < 1e-3, `the price rose: ${before.dph_base} -> ${after.dph_base}`);
  assert.equal((await api.listPendingPriceIncreases()).pending_price_increases.length, 0);
});

test('price increase: reject leaves the price; a stale id is 404 no_pending_price_increase (409 on older servers)', async () => {
  const [id] = await ids();
  const before = await api.showInstance(id!);
  const pid = await h.ctl.priceIncrease(id!);
  await api.rejectPriceIncrease(pid);
  assert.equal((await api.showInstance(id!)).dph_base, before.dph_base);
  const stale = await rejection(api.acceptPriceIncrease(pid));
  assert.equal(stale.status, 404);
  assert.equal(stale.code, 'no_pending_price_increase');
  await h.ctl.setEra('seed');
  const pid2 = await h.ctl.priceIncrease(id!);
  await api.acceptPriceIncrease(pid2);
  const old = await rejection(api.rejectPriceIncrease(pid2));
  assert.equal(old.status, 409);
  assert.equal(old.code, 'no_pending_price_increase');
});

test('price increase: the service refuses any other key (400); the client never sends one', async () => {
  const [id] = await ids();
  const pid = await h.ctl.priceIncrease(id!);
  const extra = await rawPut('/api/v0/instances/accept-price-increase/', { pending_price_increase_id: pid, instance_ids: [id] });
  assert.equal(extra.status, 400);
  const old = await rawPut('/api/v0/instances/accept-price-increase/', { instance_ids: [id] });
  assert.equal(old.status, 400);
  for (const bad of [0, -1, 1.5, Number.NaN, '7' as unknown as number]) {
    const e = await rejection(api.acceptPriceIncrease(bad));
    assert.equal(e.kind, 'invalid_request', `id ${String(bad)} is refused before sending`);
  }
  assert.equal((await api.listPendingPriceIncreases()).pending_price_increases.length, 1, 'nothing was decided');
});

test('price increase: a read-only key lists but cannot decide', async () => {
  const [id] = await ids();
  const pid = await h.ctl.priceIncrease(id!);
  const ro = h.client({ credentials: { token: () => h.sim.state.config.readOnlyKey } });
  assert.equal((await ro.listPendingPriceIncreases()).count, 1);
  assert.equal((await rejection(ro.acceptPriceIncrease(pid))).status, 403);
});

test('price increase: malformed rows are left out, not fatal', async () => {
  const { pendingPriceIncreasesSchema } = await import('../../../src/api/billingSchemas');
  const { safeParse } = await import('zod/mini');
  const r = safeParse(pendingPriceIncreasesSchema, {
    success: true,
    pending_price_increases: [
      { pending_price_increase_id: 'x' },
      { pending_price_increase_id: 3, contract_id: 9, new_gpu_costpersec: 'abc', contract_end_date: '2026-12-01T00:00:00Z' },
      'junk',
    ],
  });
  assert.ok(r.success);
  assert.deepEqual(r.data.pending_price_increases, [
    { pending_price_increase_id: 3, contract_id: 9, contract_end_date: Date.parse('2026-12-01T00:00:00Z') / 1000 },
  ]);
});

test('charges: per day and instance, GPU while running and disk always, matching what the instances cost', async () => {
  const [a, b] = await ids();
  await h.ctl.advance(3600);
  await api.setInstanceState(b!, 'stopped');
  await h.ctl.advance(2 * 86400);
  const now = await h.ctl.now();
  const charges = await api.listCharges({ from: now - 5 * 86400, to: now });
  const bySource = new Map<string, number>();
  for (const c of charges) bySource.set(c.source, (bySource.get(c.source) ?? 0) + c.amount);
  for (const id of [a!, b!]) {
    const inst = await api.showInstance(id);
    const sum = bySource.get(`instance-${id}`) ?? 0;
    assert.ok(Math.abs(sum - inst.total_cost!) < 1e-3, `instance ${id}: charges ${sum} = total_cost ${inst.total_cost}`);
  }
  const stoppedDays = charges.filter((c) => c.source === `instance-${b}` && c.start > now - 86400);
  assert.ok(stoppedDays.length >= 1);
  for (const c of stoppedDays) {
    assert.equal(c.items.find((i) => i.type === 'gpu')?.amount, 0, 'no GPU charge while stopped');
    assert.ok(c.items.find((i) => i.type === 'disk')!.amount > 0, 'storage keeps billing');
  }
  assert.ok(charges.every((c) => c.type === 'instance' && c.end - c.start === 86400 && c.start % 86400 === 0));
  assert.deepEqual(await api.listCharges({ from: now - 5 * 86400, to: now, types: ['volume'] }), []);
});

test('charges and invoices: paged walks follow next_token to the end; invoices carry the credit purchase', async () => {
  await h.ctl.seed({ instances: 30 });
  await h.ctl.advance(86400 * 2);
  const now = await h.ctl.now();
  const n = h.sim.state.requests.length;
  const charges = await api.listCharges({ from: now - 10 * 86400, to: now });
  const got = h.sim.state.requests.slice(n).filter((r) => r.path === '/api/v0/charges/');
  assert.ok(charges.length > 60, `${charges.length} rows`);
  assert.equal(got.length, Math.ceil(charges.length / 100), 'pages of 100');
  const invoices = await api.listInvoices({ from: now - 10 * 86400, to: now });
  assert.equal(invoices.filter((i) => i.service === 'instance').length, charges.length);
  const credit = invoices.find((i) => i.service === 'credit');
  assert.ok(credit && credit.amount < 0);
  assert.equal(new Set(invoices.map((i) => i.id)).size, invoices.length);
});

test('charges: a repeating next_token stops the walk with a clear error', async () => {
  await h.ctl.advance(86400 * 3);
  const transportCalls: string[] = [];
  const { request } = await import('../../../src/api/transport');
  const looping = h.client({
    transport: {
      request: async (req) => {
        transportCalls.push(req.path);
        // every page says "next: same", and "same" serves the first page again
        const res = await request({ ...req, path: req.path.replace('&after_token=same', '') });
        if (!req.path.startsWith('/api/v0/charges/')) return res;
        const j = JSON.parse(res.text) as Record<string, unknown>;
        return { ...res, text: JSON.stringify({ ...j, next_token: 'same' }) };
      },
    },
  });
  const e = await rejection(looping.listCharges({ from: 0, to: Date.now() / 1000 + 1e6 }));
  assert.equal(e.kind, 'malformed');
  assert.match(e.message, /same page twice/);
  assert.equal(transportCalls.length, 2);
});

test("npm run demo's simulator (--pending-price-increase) starts with one pending increase on its first seeded instance, read through the real client", async () => {
  const { parseArgs, startSimulator } = await import('../../../src/sim');
  const { createApiClient } = await import('../../../src/api/client');
  const opts = parseArgs(['--instances', '2', '--pending-price-increase', '--no-ssh']);
  assert.equal(opts.pendingPriceIncrease, true);
  assert.equal(parseArgs(['--instances', '2', '--no-ssh']).pendingPriceIncrease, undefined);
  const sim = await startSimulator({ ...opts, port: 0, host: '127.0.0.1', apiKey: API_KEY });
  try {
    const quiet = () => undefined;
    const api = createApiClient({
      baseUrl: sim.url,
      credentials: { token: () => API_KEY },
      log: { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet },
    } as Parameters<typeof createApiClient>[0]);
    const list = await api.listPendingPriceIncreases();
    const first = Math.min(...sim.state.instances.keys());
    assert.deepEqual(
      list.pending_price_increases.map((r) => r.contract_id),
      [first],
    );
  } finally {
    await closeApiTransport();
    await sim.close();
  }
});
