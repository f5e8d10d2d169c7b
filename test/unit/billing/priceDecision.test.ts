// Accept…, Reject… and Review… of a pending price increase (src/billing/priceDecision.ts) through
// the real client against the simulator over loopback: only an increase id the user was shown is
// sent, with exactly the body the service takes, after its figures were shown in the same prompt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../../../src/api/transport';
import type { PendingPriceIncrease, ServiceApi } from '../../../src/api/types';
import { decideIncrease, decisionTarget, type Decision, type DecisionDeps, type DecisionVerb, type ShownIncrease } from '../../../src/billing/priceDecision';
import { changeText, changedParts, increaseHeadline, rowMark } from '../../../src/billing/priceIncreases';
import { useHarness, type Harness } from '../api/helpers';

let h: Harness;
useHarness({ instances: 3 }, (x) => (h = x), { resetEach: true });

interface Run {
  deps: DecisionDeps;
  /** Every PUT body sent, with its path. */
  puts: Array<{ path: string; body: unknown }>;
  confirms: Array<{ shown: ShownIncrease; offer: readonly Decision[] }>;
  picks: ShownIncrease[][];
  infos: string[];
  errors: string[];
  reads: number;
}

/** The flow's deps on a real client whose PUTs are recorded; `answer` plays the user in the modal. */
function run(answer: (s: ShownIncrease) => Decision | undefined, pick: (c: readonly ShownIncrease[]) => ShownIncrease | undefined = () => undefined): Run {
  const r = { puts: [], confirms: [], picks: [], infos: [], errors: [], reads: 0 } as unknown as Run;
  const api: ServiceApi = h.client({
    transport: {
      request: async (req) => {
        if (req.method === 'PUT') r.puts.push({ path: req.path, body: JSON.parse(req.body ?? 'null') });
        return request(req);
      },
    },
  });
  r.deps = {
    read: async () => (r.reads++, (await api.listPendingPriceIncreases()).pending_price_increases),
    instance: () => undefined,
    name: (id) => `instance #${id}`,
    send: (how, id) => (how === 'accept' ? api.acceptPriceIncrease(id) : api.rejectPriceIncrease(id)),
    log: () => undefined,
    prompts: {
      pick: async (c) => (r.picks.push([...c]), pick(c)),
      confirm: async (shown, offer) => (r.confirms.push({ shown, offer }), answer(shown)),
      info: (m) => r.infos.push(m),
      done: (m) => r.infos.push(m),
      error: (m) => r.errors.push(m),
    },
  };
  return r;
}

const decide = (r: Run, verb: DecisionVerb, arg?: unknown) => decideIncrease(r.deps, verb, decisionTarget(arg));
const ids = async () => (await h.client().listInstances()).instances.map((i) => i.id);

test('Accept of a notified id: the figures are shown in the prompt, then exactly {"pending_price_increase_id": id} is sent', async () => {
  const [a] = await ids();
  const pid = await h.ctl.priceIncrease(a!, { gpuFactor: 1.5 });
  const r = run(() => 'accept');
  assert.equal(await decide(r, 'accept', pid), 'accepted');
  assert.equal(r.confirms.length, 1);
  assert.deepEqual(r.confirms[0]!.offer, ['accept'], 'Accept… offers Accept only');
  assert.equal(r.confirms[0]!.shown.id, pid);
  assert.match(r.confirms[0]!.shown.details.join('\n'), /Per hour: .* → .*\(\+50 %\)[\s\S]*Reject: the rental keeps its current prices/);
  assert.deepEqual(r.puts, [{ path: '/api/v0/instances/accept-price-increase/', body: { pending_price_increase_id: pid } }]);
  assert.match(r.infos.at(-1)!, /Accepted the new price/);
});

test('a stale id says "no longer pending", reads the list again and sends nothing', async () => {
  const [a] = await ids();
  const pid = await h.ctl.priceIncrease(a!);
  await h.client().rejectPriceIncrease(pid);
  const r = run(() => assert.fail('nothing is asked about a stale id'));
  assert.equal(await decide(r, 'reject', { pending_price_increase_id: pid }), 'stale');
  assert.match(r.infos.join('\n'), new RegExp(`Price increase ${pid} is no longer pending`));
  assert.ok(r.reads >= 1);
  assert.deepEqual(r.puts, []);
});

test('an id that is not a pending increase is never taken for an instance id', async () => {
  const [a, b] = await ids();
  // an increase is pending on instance b; the command is given b's instance id as a number
  const pid = await h.ctl.priceIncrease(b!);
  assert.notEqual(pid, b);
  const r = run(() => 'accept');
  assert.equal(await decide(r, 'accept', b), 'stale');
  assert.equal(await decide(r, 'accept', a), 'stale');
  assert.deepEqual(r.confirms, []);
  assert.deepEqual(r.puts, []);
  assert.equal((await h.client().listPendingPriceIncreases()).count, 1, 'still pending');
});

test('the palette with one pending increase shows it before deciding; Escape sends nothing', async () => {
  const [a] = await ids();
  const pid = await h.ctl.priceIncrease(a!);
  const r = run(() => undefined);
  assert.equal(await decide(r, 'accept'), 'cancelled');
  assert.equal(r.confirms.length, 1);
  assert.equal(r.confirms[0]!.shown.id, pid);
  assert.deepEqual(r.puts, []);
  const none = run(() => 'accept');
  await h.client().rejectPriceIncrease(pid);
  assert.equal(await decide(none, 'accept'), 'cancelled');
  assert.match(none.infos[0]!, /No price increase is pending/);
});

test('several pending: a pick with each headline, then the modal of the one picked; an instance row picks its own', async () => {
  const [a, b, c] = await ids();
  const pa = await h.ctl.priceIncrease(a!);
  const pb = await h.ctl.priceIncrease(b!, { gpuFactor: 2 });
  const r = run(
    (s) => (s.id === pb ? 'reject' : undefined),
    (choices) => choices.find((x) => x.id === pb),
  );
  assert.equal(await decide(r, 'review'), 'rejected');
  assert.deepEqual(
    r.picks[0]!.map((x) => x.id),
    [pa, pb],
  );
  assert.match(r.picks[0]![1]!.headline, /GPU \+100 %/);
  assert.deepEqual(r.confirms[0]!.offer, ['accept', 'reject']);
  assert.deepEqual(r.puts, [{ path: '/api/v0/instances/reject-price-increase/', body: { pending_price_increase_id: pb } }]);
  const row = run(() => 'accept');
  assert.equal(await decide(row, 'accept', { id: a }), 'accepted');
  assert.deepEqual(
    row.puts.map((p) => p.body),
    [{ pending_price_increase_id: pa }],
  );
  const other = run(() => 'accept');
  assert.equal(await decide(other, 'accept', { id: c }), 'cancelled', 'no increase on that instance');
  assert.deepEqual(other.puts, []);
});

test('figures that changed since the notification are shown as changed, with the new figures', async () => {
  const [a] = await ids();
  const pid = await h.ctl.priceIncrease(a!, { gpuFactor: 1.5 });
  const [now] = (await h.client().listPendingPriceIncreases()).pending_price_increases;
  const notified: PendingPriceIncrease = { ...now!, new_gpu_costpersec: now!.old_gpu_costpersec! * 1.1 };
  const r = run((s) => (s.changed ? undefined : 'accept'));
  assert.equal(await decide(r, 'accept', notified), 'cancelled');
  assert.equal(r.confirms[0]!.shown.changed, true);
  assert.match(r.confirms[0]!.shown.details.join('\n'), /\(\+50 %\)/, 'the current figures');
  assert.deepEqual(r.puts, []);
  const same = run((s) => (s.changed ? undefined : 'accept'));
  assert.equal(await decide(same, 'accept', now), 'accepted', 'unchanged figures: decided as shown');
  assert.deepEqual(
    same.puts.map((p) => p.body),
    [{ pending_price_increase_id: pid }],
  );
});

test('figures that change while the prompt is open are shown again before anything is sent', async () => {
  const [a] = await ids();
  const pid = await h.ctl.priceIncrease(a!);
  const r = run(() => 'accept');
  const read = r.deps.read;
  let n = 0;
  // the second read (after the first prompt) sees the host's new figures for the same id
  r.deps.read = async () => {
    const rows = await read();
    return ++n >= 2 ? rows.map((p) => ({ ...p, new_gpu_costpersec: (p.new_gpu_costpersec ?? 0) * 2 })) : rows;
  };
  assert.equal(await decide(r, 'accept', pid), 'accepted');
  assert.deepEqual(
    r.confirms.map((c) => c.shown.changed),
    [false, true],
  );
  assert.deepEqual(
    r.puts.map((p) => p.body),
    [{ pending_price_increase_id: pid }],
  );
});

test('decided elsewhere while the prompt was open: "no longer pending", nothing sent', async () => {
  const [a] = await ids();
  const pid = await h.ctl.priceIncrease(a!);
  const r = run(() => 'accept');
  const confirm = r.deps.prompts.confirm;
  r.deps.prompts.confirm = async (s, o) => {
    await h.client().rejectPriceIncrease(pid);
    return confirm(s, o);
  };
  assert.equal(await decide(r, 'accept', pid), 'stale');
  assert.match(r.infos.join('\n'), /no longer pending/);
  assert.deepEqual(
    r.puts.filter((p) => p.path.includes('accept')),
    [],
  );
});

test('the headline counts GPU, disk, bandwidth and platform fee; an old price of 0 or none is a "new charge", never "+0 %"', () => {
  const base: PendingPriceIncrease = {
    pending_price_increase_id: 1,
    contract_id: 2,
    old_gpu_costpersec: 1 / 3600,
    new_gpu_costpersec: 1 / 3600,
    old_disk_ram_costpersec: 0.1 / 3600,
    new_disk_ram_costpersec: 0.1 / 3600,
  };
  const bw = { ...base, old_bwu_cost: 0.01, new_bwu_cost: 0.02, old_bwd_cost: 0.02, new_bwd_cost: 0.03 };
  assert.match(increaseHeadline(bw, 'train', undefined), /upload bandwidth \+100 %, download bandwidth \+50 %/);
  assert.doesNotMatch(increaseHeadline(bw, 'train', undefined), /\+0 %/);
  assert.equal(rowMark(bw, undefined), 'price change pending (upload bandwidth +100 %)');
  const fee = { ...base, old_platform_fee: 0, new_platform_fee: 0.05 };
  assert.match(increaseHeadline(fee, 'train', undefined), /platform fee: new charge/);
  const gpuNull = { ...base, old_gpu_costpersec: null, new_gpu_costpersec: 0.5 / 3600, old_disk_ram_costpersec: null, new_disk_ram_costpersec: null };
  assert.match(increaseHeadline(gpuNull, 'train', undefined), /GPU: new charge/);
  assert.equal(rowMark(gpuNull, undefined), 'price: new charge pending');
  const disk = { ...base, new_disk_ram_costpersec: 0.2 / 3600 };
  assert.deepEqual(changedParts(disk), ['disk and RAM +100 %']);
  assert.equal(changeText(100, 100.01), '+<0.1 %');
  assert.equal(changeText(100, 100.3), '+0.3 %');
  assert.equal(changeText(0, 0), undefined);
  assert.equal(changeText(null, null), undefined);
  assert.equal(changeText(2, 1), '−50 %');
});
