// Money paths of "Create Instance from Template" under the simulator's injected faults:
// one click rents at most one machine, and a rented machine is never left untracked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimFault, WireFaultKind } from '../../../src/sim/control';
import { WIRE_FAULTS } from '../../kit/wireFaults';
import type { Offer } from '../../../src/api/types';
import { readInflight, runCreateFlow, type CreateFlowResult } from '../../../src/create/createFlow';
import { SERVICE_THRESHOLDS_MS } from '../../../src/api/pacing';
import { offerSatisfies } from '../../../src/create/offerFit';
import type { Template } from '../../../src/create/templateSchema';
import { mulberry32 } from '../../../src/sim/prng';
import { flowSim, harness, puts, simInstances, template, useFlowSim, type Harness } from './flowHarness';

useFlowSim();

const SHOW = '/api/v0/instances/2'; // every simulator instance id starts with 2: show only, not the list
const CREATE = '/api/v0/asks/';

/** Every instance the simulator holds, visible in reads or not. */
async function held(): Promise<number[]> {
  const res = await fetch(`${flowSim.sim.url}/_sim/state`);
  const body = (await res.json()) as { instances: Array<{ id: number }> };
  return body.instances.map((i) => i.id);
}

function mentioned(r: CreateFlowResult, id: number): boolean {
  if (r.outcome === 'running' || r.outcome === 'stopped') return r.instance.id === id;
  if (r.outcome === 'unknown') return r.instanceId === id;
  if (r.outcome === 'cancelled' || r.outcome === 'failed' || r.outcome === 'kept') {
    if ('keptId' in r && r.keptId === id) return new RegExp(`\\b${id}\\b`).test(r.message);
  }
  return false;
}

/** The invariant: at most one machine for the click, and each one tracked or named to the user. */
async function assertInvariant(h: Harness, r: CreateFlowResult, what: string): Promise<void> {
  const ids = await held();
  assert.ok(ids.length <= 1, `${what}: ${ids.length} machines rented for one click (${ids.join(', ')}); result ${JSON.stringify(r)}`);
  for (const id of ids) {
    const inStore = h.upserts.includes(id) && !h.removed.includes(id);
    assert.ok(inStore || mentioned(r, id), `${what}: instance ${id} is neither in the store nor reported by id: ${JSON.stringify(r)}`);
    assert.notEqual(r.outcome, 'failed', `${what}: a rented machine ended the flow as "failed": ${JSON.stringify(r)}`);
  }
}

async function run(h: Harness, t: Template = template, extra: Partial<Parameters<typeof runCreateFlow>[1]> = {}): Promise<CreateFlowResult> {
  return runCreateFlow(h.ports, { template: t, templatePath: '.gpu/t.json', confirm: false, ...extra });
}

// ---- 1. a read that says "not found" is not proof that a machine is gone -------------

test('one transient 404 on show right after renting does not rent a second machine', async () => {
  await flowSim.control.fault({ kind: 'http_error', status: 404, error: 'no_such_instance', path: SHOW, count: 1 });
  const h = harness();
  const r = await run(h);
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal(await puts(), 1, 'exactly one rent request');
  assert.equal((await held()).length, 1);
  assert.ok(!h.log.lines.some((l) => /disappeared/.test(l)), h.log.lines.join('\n'));
});

test('show answering "not found" for minutes while the list still shows the machine: keeps tracking it, never rents again', async () => {
  await flowSim.control.fault({ kind: 'http_error', status: 404, error: 'no_such_instance', path: SHOW, count: 25 });
  const h = harness();
  const r = await run(h);
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal(await puts(), 1);
  assert.equal((await held()).length, 1);
});

test('a new machine invisible to show and list for 40 s (late visibility) is waited for, not rented again', async () => {
  await flowSim.control.fault({ kind: 'hidden', seconds: 40 });
  const h = harness();
  const r = await run(h);
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal(await puts(), 1);
});

/** A client whose first rented machine is destroyed from elsewhere (the web console) right after a read showed it. */
function destroyedOnceSeen(): Parameters<typeof harness>[0] {
  let shown = 0;
  return {
    wrap: (api) => ({
      ...api,
      showInstance: async (id, o) => {
        const inst = await api.showInstance(id, o);
        if ((await puts()) === 1 && ++shown === 1) await api.destroyInstance(id);
        return inst;
      },
    }),
  };
}

test('a machine shown once, then destroyed from elsewhere while starting: reported as such, nothing else is rented, it stays watched (scripted)', async () => {
  const h = harness(destroyedOnceSeen());
  const r = await run(h);
  assert.equal(r.outcome, 'unknown', JSON.stringify(r));
  assert.equal(await puts(), 1, 'no second machine nobody asked for');
  assert.match(
    r.outcome === 'unknown' ? r.message : '',
    /Instance \d+ \("Unit-test-box-\w+", \$[\d.]+\/h\) was last seen \d+ s ago and the instance list no longer shows it: it may have been destroyed elsewhere.*nothing else was rented/,
  );
  const inflight = readInflight(h.state);
  assert.deepEqual(
    inflight.map((x) => [x.instanceId, x.late]),
    [[r.outcome === 'unknown' ? r.instanceId : -1, true]],
    'still in flight: adopted if it appears again',
  );
});

test('a machine shown once, then gone from the list: interactive, the user is asked with its id, when it was last seen and its price; only "Rent Another" rents again', async () => {
  for (const answer of ['stop', 'rent-again'] as const) {
    await flowSim.control.reset();
    const asked: Array<Record<string, unknown>> = [];
    const h = harness({ ...destroyedOnceSeen(), prompts: { notFound: async (what) => (asked.push({ ...what }), answer) } });
    const r = await run(h, template, { confirm: true });
    assert.equal(asked.length, 1, answer);
    const q = asked[0]!;
    assert.ok(typeof q.instanceId === 'number' && typeof q.lastSeenAgoMs === 'number' && typeof q.dphTotal === 'number', JSON.stringify(q));
    assert.equal(r.outcome, answer === 'stop' ? 'unknown' : 'running', JSON.stringify(r));
    assert.equal(await puts(), answer === 'stop' ? 1 : 2, answer);
    assert.ok(
      readInflight(h.state).some((x) => x.instanceId === q.instanceId && x.late),
      'the first stays watched either way',
    );
  }
});

test('a machine never shown and destroyed behind our back: scripted, the flow never rents a second one, it answers unknown and keeps it in flight', async () => {
  const h = harness({
    wrap: (api) => ({
      ...api,
      createInstance: async (offerId, req, o) => {
        const res = await api.createInstance(offerId, req, o);
        await api.destroyInstance(res.new_contract);
        return res;
      },
    }),
  });
  const r = await run(h);
  assert.equal(r.outcome, 'unknown', JSON.stringify(r));
  assert.equal(await puts(), 1);
  assert.equal(readInflight(h.state).length, 1);
  assert.equal(readInflight(h.state)[0]!.late, true);
});

// ---- 2. an unreadable 2xx creation answer is ambiguous ------------------------------

for (const kind of ['malformed', 'truncated', 'wrong_shape'] as const) {
  test(`a 2xx creation answer that cannot be read (${kind}) is reconciled, not reported as a failure`, async () => {
    await flowSim.control.fault({ kind, path: CREATE, count: 1 });
    const h = harness();
    const r = await run(h);
    assert.equal(r.outcome, 'running', JSON.stringify(r));
    assert.equal(await puts(), 1, 'never rented twice');
    assert.equal((await held()).length, 1);
  });
}

// ---- 3. a preselected offer must satisfy the template --------------------------------

async function expensiveOffer(h: Harness): Promise<Offer> {
  const offers = await h.api.searchOffers({ gpuNames: ['RTX 4090'], order: [['dph_total', 'desc']], limit: 1 });
  assert.ok(offers[0] && offers[0].dph_total > 0.05);
  return offers[0];
}
const cheapTemplate: Template = { ...template, offer: { ...template.offer, maxDphTotal: 0.05 } };

test('offerSatisfies names every template filter the offer fails, readable', () => {
  const offer = { id: 9, num_gpus: 1, gpu_name: 'H100 SXM', dph_total: 23.28, gpu_ram: 8000, reliability: 0.9, verified: false, direct_port_count: 0 } as Offer;
  const t: Template = {
    name: 'x',
    instance: { image: 'i' },
    offer: { maxDphTotal: 0.05, gpuNames: ['RTX 4090'], minGpuRamGb: 24, minReliability: 0.98, numGpus: 2, minDirectPorts: 1 },
  };
  const reasons = offerSatisfies(t, offer);
  const text = reasons.join('\n');
  for (const want of [
    /\$23\.28\/h.*maxDphTotal \$0\.05\/h/,
    /H100 SXM.*gpuNames/,
    /8 GB.*minGpuRamGb 24/,
    /90\.0%.*minReliability 98/,
    /1 GPU.*numGpus 2/,
    /not verified/,
    /0 direct ports.*minDirectPorts 1/,
  ])
    assert.match(text, want);
  assert.deepEqual(offerSatisfies({ name: 'x', instance: { image: 'i' } }, { ...offer, verified: true }), []);
  // a bid template: the offer's minimum bid must not exceed the bid
  assert.match(
    offerSatisfies({ name: 'b', instance: { image: 'i' }, offer: { type: 'bid', bidPrice: 0.1 } }, { ...offer, verified: true, min_bid: 0.3 }).join(),
    /minimum bid \$0\.30\/h.*bidPrice \$0\.10\/h/,
  );
});

test('Rent This Offer with confirm:false refuses an offer above the template price cap; nothing is rented', async () => {
  const h = harness();
  const offer = await expensiveOffer(h);
  for (const pre of [offer, offer.id]) {
    const r = await run(h, cheapTemplate, { offer: pre });
    assert.equal(r.outcome, 'failed', JSON.stringify(r));
    assert.match(r.outcome === 'failed' ? r.message : '', /maxDphTotal \$0\.05\/h/);
    assert.match(r.outcome === 'failed' ? r.message : '', /Nothing was rented/);
  }
  assert.equal(await puts(), 0);
});

test('Rent This Offer outside the template asks with the reasons; no means nothing is rented, yes rents that offer', async () => {
  for (const answer of [false, true]) {
    await flowSim.control.reset();
    const asked: string[][] = [];
    const h = harness({ prompts: { confirmOutsideTemplate: async (_o, _t, reasons) => (asked.push([...reasons]), answer) } });
    const offer = await expensiveOffer(h);
    const r = await run(h, cheapTemplate, { offer, confirm: true });
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.join(), /maxDphTotal/);
    if (!answer) {
      assert.equal(r.outcome, 'cancelled', JSON.stringify(r));
      assert.equal(await puts(), 0);
    } else {
      assert.equal(r.outcome, 'running', JSON.stringify(r));
      assert.equal(h.confirms.length, 1, 'the price was still confirmed');
      const all = await simInstances();
      assert.equal(all.length, 1);
    }
  }
});

// ---- 4. once rented, no read error ends the flow as "failed" -------------------------

test('a 429 on the status poll after renting backs off and keeps tracking to running', async () => {
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: SHOW, count: 3 });
  const h = harness();
  const r = await run(h);
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  // backs off beyond the service's 2 s threshold for show-instance, then reads at that threshold again
  assert.ok(h.clock.slept[0]! >= 2 * SERVICE_THRESHOLDS_MS.show, JSON.stringify(h.clock.slept));
  assert.ok(
    h.clock.slept.slice(1).every((ms) => ms === SERVICE_THRESHOLDS_MS.show),
    JSON.stringify(h.clock.slept),
  );
});

for (const status of [401, 403, 410, 429, 500]) {
  test(`status reads failing with HTTP ${status} until it gives up hand the instance to the Instances view, named with its price`, async () => {
    await flowSim.control.fault({ kind: 'http_error', status, path: SHOW, count: 10_000 });
    await flowSim.control.fault({ kind: 'http_error', status, path: '/api/v0/instances', exact: true, count: 10_000 });
    const h = harness({ prompts: { keepOrDestroy: async () => 'keep' } });
    const r = await run(h, template, { maxWaitMs: 5 * 60_000 });
    assert.notEqual(r.outcome, 'failed', JSON.stringify(r));
    const [id] = await held();
    assert.ok(id !== undefined);
    assert.ok(r.outcome === 'kept' || r.outcome === 'cancelled', JSON.stringify(r));
    assert.equal('keptId' in r ? r.keptId : undefined, id);
    assert.match('message' in r ? r.message : '', new RegExp(`Instance ${id} \\(.*\\$\\d+\\.\\d+/h.*\\).*Instances view`));
    assert.ok(h.upserts.includes(id!) && !h.removed.includes(id!), 'still in the store');
  });
}

test('a 429 on the create request (refused, nothing rented) waits out the creation penalty and rents once', async () => {
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: CREATE, count: 2 });
  const h = harness();
  const r = await run(h);
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal((await held()).length, 1);
  assert.ok(h.clock.slept.filter((ms) => ms >= 12_000).length >= 2, JSON.stringify(h.clock.slept));
  assert.equal(r.outcome === 'running' && r.attempts, 1, 'a refused request is not an attempt');
});

// ---- 5. reconciliation logs state only what the list showed --------------------------

test('an ambiguous create found late (visible after 30 s) is reconciled by asking the list again; never rents twice', async () => {
  await flowSim.control.fault({ kind: 'hidden', seconds: 30 });
  await flowSim.control.fault({ kind: 'slow', ms: 700, path: CREATE, count: 1 });
  const h = harness({ timeoutMs: 300 });
  const r = await run(h);
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  await new Promise((resolve) => setTimeout(resolve, 600)); // the slow answer is logged when it is finally sent
  assert.equal(await puts(), 1);
  assert.equal((await held()).length, 1);
  const text = h.log.lines.join('\n');
  assert.ok(!/nothing was rented/i.test(text), text);
  assert.match(text, /the instance list does not show "Unit-test-box-\w+" yet/);
});

// ---- the invariant over every fault the simulator can inject ------------------------

const FAULTS = WIRE_FAULTS;
const STATUSES = [404, 410, 429, 500, 502];
const TARGETS: Array<[string, { path: string; exact?: boolean }]> = [
  ['create', { path: CREATE }],
  ['show', { path: SHOW }],
  ['list', { path: '/api/v0/instances', exact: true }],
  ['list v1', { path: '/api/v1/instances', exact: true }],
];

function faultsFor(kind: WireFaultKind, target: { path: string; exact?: boolean }, count: number): SimFault[] {
  const base = FAULTS[kind](target.path);
  if (base.kind === 'hidden' || base.kind === 'unfiltered') return [{ ...base, count }];
  const f = { ...base, ...(target.exact ? { exact: true } : {}), count } as SimFault;
  if (f.kind === 'slow') return [f, { ...f, ms: 120 }]; // a timeout, and a slow answer that still arrives in time
  if (f.kind !== 'http_error') return [f];
  return STATUSES.map((status) => ({ ...f, status }) as SimFault);
}

test('money invariant: under every injectable fault on create/show/list, one click holds at most one machine and each is tracked or named', async () => {
  const cases: Array<{ what: string; faults: SimFault[] }> = [];
  for (const kind of Object.keys(FAULTS) as WireFaultKind[])
    for (const [name, target] of TARGETS)
      for (const count of [1, 3]) for (const f of faultsFor(kind, target, count)) cases.push({ what: `${JSON.stringify(f)} on ${name}`, faults: [f] });
  // and random sequences of several faults at once (seeded: a failure names its case)
  const rng = mulberry32(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  for (let n = 0; n < 24; n++) {
    const faults: SimFault[] = [];
    for (let k = 0; k < 3; k++) {
      const [, target] = pick(TARGETS);
      faults.push(pick(faultsFor(pick(Object.keys(FAULTS) as WireFaultKind[]), target, 1 + Math.floor(rng() * 3))));
    }
    cases.push({ what: `sequence ${n}: ${JSON.stringify(faults)}`, faults });
  }
  for (const c of cases) {
    await flowSim.control.reset();
    for (const f of c.faults) await flowSim.control.fault(f);
    const h = harness({ timeoutMs: 300, prompts: { keepOrDestroy: async () => 'keep' } });
    const r = await run(h, template, { maxWaitMs: 20 * 60_000 });
    await assertInvariant(h, r, c.what);
  }
});

// ---- late machines: test/unit/create/moneyLate.test.ts runs the invariant over every late-machine
// scenario (its own file, so each file stays within the runner's per-file time limit) ----

// ---- 13. template secrets echoed by the server never reach a message or the log --------

test('a 400 echoing an expanded ${secret:…} value and the image_login password leaks neither to the message nor the log', async () => {
  const { loadTemplate } = await import('../../../src/create/templateValidation');
  const hf = 'hf_SeCrEt0123456789abcdef';
  const pass = 'reg1stry-Pa55word';
  const loaded = await loadTemplate(
    JSON.stringify({
      name: 'Secret box',
      instance: { image: 'i', env: { HF_TOKEN: '${secret:HF}' }, image_login: '-u robot -p ${secret:REG} ghcr.example.com' },
    }),
    { env: {}, secret: async (n: string) => (n === 'HF' ? hf : n === 'REG' ? pass : undefined), readFile: async () => undefined },
  );
  assert.ok(loaded.template, JSON.stringify(loaded.problems));
  await flowSim.control.fault({
    kind: 'http_error',
    status: 400,
    error: 'invalid_args',
    msg: `bad env HF_TOKEN=${hf} and login -u robot -p ${pass} ghcr.example.com`,
    path: CREATE,
  });
  const h = harness();
  const r = await run(h, loaded.template, { secrets: loaded.secrets });
  assert.equal(r.outcome, 'failed', JSON.stringify(r));
  const seen = `${JSON.stringify(r)}\n${h.log.lines.join('\n')}`;
  assert.ok(seen.includes('bad env HF_TOKEN='), 'the server message is still shown (masked)');
  for (const s of [hf, pass]) assert.ok(!seen.includes(s), `secret ${s.slice(0, 4)}… leaked:\n${seen}`);
});
