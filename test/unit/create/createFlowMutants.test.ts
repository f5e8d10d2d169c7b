// The create flow's moves between offers, each written to fail if one small change were planted
// in src/create/createFlow.ts (the `create` mutation group, BENCHMARKS.md): after a refusal that
// proves nothing was created, a pricier next offer is rented only after a new yes, and an offer on
// a machine that already refused is skipped; a guard that cannot be set up rents nothing. Against
// the simulator, as the other flow tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorFromResponse } from '../../../src/api/errors';
import type { Offer, ServiceApi } from '../../../src/api/types';
import { readInflight, runCreateFlow, type CreateFlowResult, type FailedBootInfo } from '../../../src/create/createFlow';
import { resolveGuardPlan } from '../../../src/guard/plan';
import { flowSim, harness, puts, template, useFlowSim, type Harness } from './flowHarness';

useFlowSim();

const gone = (offerId: number) => errorFromResponse('PUT', `/api/v0/asks/${offerId}/`, 404, JSON.stringify({ success: false, error: 'no_such_ask', msg: 'x' }));
const run = (h: Harness, confirm = true): Promise<CreateFlowResult> => runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm });

/** A harness whose first `refuse` creates are refused as gone (the service did nothing); the offers asked for are recorded. */
function refusing(refuse: number, confirmRent: (offer: Offer, n: number) => boolean, sameMachine = false) {
  const asked: number[] = [];
  let n = 0;
  const h = harness({
    prompts: { confirmRent: async (offer) => confirmRent(offer, ++n) },
    wrap: (api) => ({
      ...api,
      // sameMachine: the second offer of the search is on the first one's machine.
      searchOffers: async (q, o) => {
        const found = await api.searchOffers(q, o);
        return sameMachine && found.length > 2 ? found.map((x, i) => (i === 1 ? { ...x, machine_id: found[0]!.machine_id } : x)) : found;
      },
      createInstance: async (offerId, req, o) => {
        asked.push(offerId);
        if (asked.length <= refuse) throw gone(offerId);
        return api.createInstance(offerId, req, o);
      },
    }),
  });
  return { h, asked };
}

test('after a proven refusal, a pricier next offer needs a new yes; no means nothing more is rented', async () => {
  const r = refusing(1, (_o, n) => n === 1);
  const res = await run(r.h);
  assert.equal(res.outcome, 'cancelled', JSON.stringify(res));
  assert.equal(r.asked.length, 1, 'one create request: the refused one');
  const [first, second] = r.h.confirms;
  assert.ok(second, 'asked again before the next offer');
  assert.ok(second.dph_total > first!.dph_total, `the next offer is pricier (${first!.dph_total} -> ${second.dph_total})`);
  assert.equal(await puts(), 0);
});

test('after a proven refusal, yes to the pricier offer rents it, once, on another machine than the refused one', async () => {
  const r = refusing(1, () => true);
  const res = await run(r.h);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.equal(r.asked.length, 2);
  const [first, second] = r.h.confirms;
  assert.ok(second && second.id === r.asked[1], 'the offer asked about is the one rented');
  assert.notEqual(second.machine_id, first!.machine_id);
  assert.equal(await puts(), 1);
});

test('an offer on the machine that refused is skipped: the one after it is rented', async () => {
  const r = refusing(1, () => true, true);
  const res = await run(r.h);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  const [first, second] = r.h.confirms;
  assert.equal(r.asked.length, 2);
  assert.notEqual(second!.machine_id, first!.machine_id, 'not the second offer: it is on the refused machine');
});

test('scripted (confirm: false): the next offer is rented without a prompt', async () => {
  const r = refusing(1, () => assert.fail('a scripted run is never asked'));
  const res = await run(r.h, false);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.equal(r.asked.length, 2);
});

test('a template guard that cannot be set up (an API URL the guard cannot use): nothing is rented, the reason is said', async () => {
  const h = harness();
  const res = await runCreateFlow(h.ports, {
    template,
    templatePath: '.gpu/t.json',
    confirm: false,
    guard: { plan: resolveGuardPlan({ idleMinutes: 30 })!, explicit: true, apiUrl: 'not a url' },
  });
  assert.equal(res.outcome, 'failed', JSON.stringify(res));
  assert.match(res.outcome === 'failed' ? res.message : '', /^Nothing was rented\. The API base URL "not a url" is not a valid URL/);
  assert.equal(res.attempts, 1);
  assert.ok(
    h.log.lines.some((l) => /^warn create: The API base URL/.test(l)),
    h.log.lines.join('\n'),
  );
  assert.equal(await puts(), 0);
  assert.deepEqual(readInflight(h.state), []);
});

test('a default guard (from the settings) that cannot be set up is left out with a warning, and the machine is rented', async () => {
  const h = harness();
  const res = await runCreateFlow(h.ports, {
    template,
    templatePath: '.gpu/t.json',
    confirm: false,
    guard: { plan: resolveGuardPlan({ idleMinutes: 30 })!, explicit: false, apiUrl: 'not a url' },
  });
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.ok(
    h.log.lines.some((l) => l.startsWith('warn create: the default idle guard is left out of this instance: The API base URL')),
    h.log.lines.join('\n'),
  );
});

test('the attempts are bounded: 3 by default, at least 1 when asked for 0; fewer matches than attempts end the loop', async () => {
  const three = refusing(9, () => true);
  const res = await run(three.h, false);
  assert.equal(res.outcome, 'failed', JSON.stringify(res));
  assert.equal(three.asked.length, 3, 'three create requests by default');
  assert.equal(res.outcome === 'failed' ? res.attempts : 0, 3);
  assert.match(res.outcome === 'failed' ? res.message : '', /after 3 attempt\(s\)/);

  const one = refusing(9, () => true);
  const res1 = await runCreateFlow(one.h.ports, { template, templatePath: '.gpu/t.json', confirm: false, maxAttempts: 0 });
  assert.equal(one.asked.length, 1, 'maxAttempts 0 still rents at most once');
  assert.equal(res1.outcome === 'failed' ? res1.attempts : 0, 1);

  const asked: number[] = [];
  const two = harness({
    wrap: (api) => ({
      ...api,
      searchOffers: async (q, o) => (await api.searchOffers(q, o)).slice(0, 2),
      createInstance: async (offerId) => {
        asked.push(offerId);
        throw gone(offerId);
      },
    }),
  });
  const res2 = await runCreateFlow(two.ports, { template, templatePath: '.gpu/t.json', confirm: false, maxAttempts: 5 });
  assert.equal(res2.outcome, 'failed', JSON.stringify(res2));
  assert.equal(asked.length, 2, 'both matches tried, no more');
  assert.equal(res2.outcome === 'failed' ? res2.attempts : 0, 2);
  assert.match(res2.outcome === 'failed' ? res2.message : '', /after 2 attempt\(s\)/);
});

test('a cancel while a refused offer is answered: the next offer is not rented', async () => {
  const ac = new AbortController();
  const asked: number[] = [];
  const h = harness({
    wrap: (api) => ({
      ...api,
      createInstance: async (offerId) => {
        asked.push(offerId);
        ac.abort();
        throw gone(offerId);
      },
    }),
  });
  const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, signal: ac.signal });
  assert.equal(res.outcome, 'cancelled', JSON.stringify(res));
  assert.equal(asked.length, 1);
  assert.equal(await puts(), 0);
});

test("the input's onstart is sent over the template's; the template's when the input has none", async () => {
  const sent: Array<string | undefined> = [];
  const wrap = (api: ServiceApi): ServiceApi => ({
    ...api,
    createInstance: async (offerId, req, o) => {
      sent.push(req.onstart);
      return api.createInstance(offerId, req, o);
    },
  });
  const t = { ...template, instance: { ...template.instance, onstart: 'echo template' } };
  await runCreateFlow(harness({ wrap }).ports, { template: t, templatePath: '.gpu/t.json', confirm: false, onstart: 'echo input' });
  await runCreateFlow(harness({ wrap }).ports, { template: t, templatePath: '.gpu/t.json', confirm: false });
  assert.deepEqual(sent, ['echo input', 'echo template']);
});

/** A harness whose store port records every call in order. */
function storeHarness(o: Parameters<typeof harness>[0] = {}) {
  const h = harness(o);
  const calls: string[] = [];
  h.ports = {
    ...h.ports,
    instances: {
      upsert: (i) => void calls.push(`upsert ${i.id} ${i.state ?? ''}`),
      watch: (id) => void calls.push(`watch ${id}`),
      remove: (id) => void calls.push(`remove ${id}`),
    },
  };
  return { h, calls };
}

test('a rented instance is in the store at once, as provisioning, and watched; a destroy after a timeout removes it', async () => {
  const { h, calls } = storeHarness({ prompts: { keepOrDestroy: async () => 'destroy' } });
  const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, maxWaitMs: 1 });
  assert.equal(res.outcome, 'cancelled', JSON.stringify(res));
  const id = res.outcome === 'cancelled' ? res.destroyedId! : 0;
  assert.ok(id > 0, JSON.stringify(res));
  assert.deepEqual(calls.slice(0, 2), [`upsert ${id} provisioning`, `watch ${id}`]);
  assert.equal(calls.at(-1), `remove ${id}`);
  assert.deepEqual(readInflight(h.state), []);
});

test("a template whose target state is 'stopped' ends stopped, its record gone", async () => {
  const h = harness();
  const t = { ...template, instance: { ...template.instance, target_state: 'stopped' as const } };
  const res = await runCreateFlow(h.ports, { template: t, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(res.outcome, 'stopped', JSON.stringify(res));
  assert.equal(res.outcome === 'stopped' ? res.attempts : 0, 1);
  assert.deepEqual(readInflight(h.state), []);
  assert.equal(h.sshWrites.length, 0);
  assert.ok(!h.progress.some((p) => p.stage === 'running'), `never said to be running: ${JSON.stringify(h.progress)}`);
});

test('reads that keep failing: the instance is handed to the Instances view (kept, still in flight), named with its price', async () => {
  const fail = () => {
    throw errorFromResponse('GET', '/api/v0/instances/', 500, JSON.stringify({ success: false, error: 'server_error', msg: 'down' }));
  };
  const h = harness({ wrap: (api) => ({ ...api, showInstance: async () => fail(), listInstances: async () => fail() }) });
  const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, maxWaitMs: 1e12 });
  assert.equal(res.outcome, 'kept', JSON.stringify(res));
  const id = res.outcome === 'kept' ? res.keptId : 0;
  assert.ok(id > 0);
  assert.equal(res.outcome === 'kept' ? res.attempts : 0, 1);
  assert.match(res.outcome === 'kept' ? res.message : '', new RegExp(`^Instance ${id} \\(\\d+× [^,]+, \\$[\\d.]+/h\\) is rented and billing`));
  assert.deepEqual(
    readInflight(h.state).map((r) => r.instanceId),
    [id],
  );
  assert.ok(
    h.log.lines.some((l) => l.startsWith(`warn create: reading instance ${id} kept failing`)),
    h.log.lines.join('\n'),
  );
  assert.equal(await puts(), 1);
});

test('a timeout answered "keep": cancelled, kept and tracked, named with its price; a destroy that fails: failed, kept', async () => {
  const keep = harness({ prompts: { keepOrDestroy: async () => 'keep' } });
  const res = await runCreateFlow(keep.ports, { template, templatePath: '.gpu/t.json', confirm: true, maxWaitMs: 1 });
  assert.equal(res.outcome, 'cancelled', JSON.stringify(res));
  const id = res.outcome === 'cancelled' ? res.keptId! : 0;
  assert.ok(id > 0 && (res.outcome !== 'cancelled' || res.destroyedId === undefined), JSON.stringify(res));
  assert.match(res.outcome === 'cancelled' ? res.message : '', new RegExp(`^Instance ${id} \\(\\d+× [^,]+, \\$[\\d.]+/h\\) is kept and still billing`));
  assert.ok(
    keep.log.lines.some((l) => l === `info create: keeping instance ${id} (timeout); it stays tracked and its SSH entry is written when it comes up`),
    keep.log.lines.join('\n'),
  );
  assert.deepEqual(
    readInflight(keep.state).map((r) => r.instanceId),
    [id],
  );

  const broken = harness({
    prompts: { keepOrDestroy: async () => 'destroy' },
    wrap: (api) => ({
      ...api,
      destroyInstance: async () => {
        throw errorFromResponse('DELETE', '/api/v0/instances/1/', 500, '{}');
      },
    }),
  });
  const res2 = await runCreateFlow(broken.ports, { template, templatePath: '.gpu/t.json', confirm: true, maxWaitMs: 1 });
  assert.equal(res2.outcome, 'failed', JSON.stringify(res2));
  assert.ok(res2.outcome === 'failed' && res2.keptId! > 0 && res2.attempts === 1 && res2.destroyedId === undefined, JSON.stringify(res2));
  assert.equal(broken.removed.length, 0);
});

test('a rental the list never shows: interactive without the question, it stops (unknown, watched, marked late); asked "rent-again", the next is rented', async () => {
  await flowSim.control.fault({ kind: 'hidden', seconds: 100_000, count: 1 });
  const h = harness();
  const res = await run(h, true);
  assert.equal(res.outcome, 'unknown', JSON.stringify(res));
  const id = res.outcome === 'unknown' ? res.instanceId! : 0;
  assert.match(
    res.outcome === 'unknown' ? res.message : '',
    new RegExp(`^Instance ${id} \\(".+", \\$[\\d.]+/h\\) was sent, but the instance list has not shown it yet`),
  );
  const [rec] = readInflight(h.state);
  assert.ok(rec && rec.instanceId === id && rec.late !== undefined, JSON.stringify(readInflight(h.state)));
  assert.ok(
    h.log.lines.some((l) => l.startsWith(`warn create: instance ${id} has not been shown by the list; nothing else is rented unasked`)),
    h.log.lines.join('\n'),
  );

  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'hidden', seconds: 100_000, count: 1 });
  const asked: unknown[] = [];
  const again = harness({ prompts: { notFound: async (f) => (asked.push(f), 'rent-again') } });
  const res2 = await run(again, true);
  assert.equal(res2.outcome, 'running', JSON.stringify(res2));
  assert.equal(asked.length, 1);
  assert.equal(await puts(), 2);
  assert.equal(again.confirms.length, 2, 'the next match is pricier: a new yes');
  assert.equal(readInflight(again.state).length, 1, 'the unseen rental stays watched');

  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'hidden', seconds: 100_000, count: 1 });
  const scripted = harness({ prompts: { notFound: async () => assert.fail('a script is never asked') } });
  assert.equal((await run(scripted, false)).outcome, 'unknown');
});

test('an error of the guard setup that is not a setup refusal is not passed off as one: it is thrown, and nothing is rented', async () => {
  const h = harness();
  const guard = {
    explicit: true,
    apiUrl: 'https://console.example',
    get plan(): never {
      throw new TypeError('a bug in the guard plan');
    },
  };
  await assert.rejects(runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, guard }), /a bug in the guard plan/);
  assert.equal(await puts(), 0);
  assert.deepEqual(readInflight(h.state), []);
});

test('an SSH entry that cannot be written: running all the same, the reason said, its record gone', async () => {
  const h = harness();
  h.ports = {
    ...h.ports,
    ssh: {
      writeEntry: async () => {
        throw new Error('config locked');
      },
    },
  };
  const res = await run(h, false);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.ok(res.outcome === 'running' && res.alias === undefined);
  assert.match(res.outcome === 'running' ? (res.sshError ?? '') : '', /^The instance is running, but its SSH entry could not be written \(config locked\)\./);
  assert.ok(
    h.log.lines.some((l) => l.startsWith(`warn create: writing the SSH entry for ${res.outcome === 'running' ? res.instance.id : 0} failed: `)),
    h.log.lines.join('\n'),
  );
  assert.deepEqual(readInflight(h.state), []);
  assert.equal(h.progress.at(-1)?.message, `Instance ${res.outcome === 'running' ? res.instance.id : 0} is running.`);
});

test('a machine shown, then destroyed elsewhere: the question says when it was last seen; "wait" looks again; then stop', async () => {
  let shown = 0;
  const fates: Array<{ lastSeenAgoMs?: number; instanceId?: number }> = [];
  const answers = ['wait', 'stop'] as const;
  const h = harness({
    prompts: { notFound: async (f) => answers[fates.push(f) - 1] ?? 'stop' },
    wrap: (api) => ({
      ...api,
      showInstance: async (id, o) => {
        const inst = await api.showInstance(id, o);
        if (++shown === 2) await api.destroyInstance(id); // seen after the first wait: a clock past 0
        return inst;
      },
    }),
  });
  const res = await run(h, true);
  assert.equal(res.outcome, 'unknown', JSON.stringify(res));
  assert.equal(fates.length, 2, 'asked again after "wait"');
  const first = fates[0]!;
  // on the virtual clock: seen by the read at 2 s (reads at the show threshold once it is shown), not shown from 4 s
  // (then read at the 10 s interval), asked at 74 s (the list's misses over a minute), asked again 70 s later
  assert.equal(first.lastSeenAgoMs, 72_000);
  assert.equal(fates[1]!.lastSeenAgoMs, 142_000);
  assert.match(res.outcome === 'unknown' ? res.message : '', /was last seen \d+ (s|min) ago and the instance list no longer shows it/);
  assert.ok(
    h.log.lines.some((l) => l.startsWith(`warn create: instance ${first.instanceId} was shown before and the list no longer shows it`)),
    h.log.lines.join('\n'),
  );
  assert.equal(await puts(), 1);
});

test('after a proven refusal, a next offer at the same price is rented without a second question', async () => {
  const asked: number[] = [];
  const h = harness({
    wrap: (api) => ({
      ...api,
      searchOffers: async (q, o) => (await api.searchOffers(q, o)).map((x) => ({ ...x, dph_total: 0.5 })),
      createInstance: async (offerId, req, o) => {
        asked.push(offerId);
        if (asked.length === 1) throw gone(offerId);
        return api.createInstance(offerId, req, o);
      },
    }),
  });
  const res = await run(h, true);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.equal(asked.length, 2);
  assert.equal(h.confirms.length, 1, 'the price was confirmed once');
});

test('progress counts the attempt from 1 and the elapsed time from the latest yes', async () => {
  let n = 0;
  const h = harness({
    prompts: {
      confirmRent: async () => {
        if (++n === 2) await h.clock.sleep(45_000); // the user takes 45 s over the second question
        return true;
      },
    },
    wrap: (api) => ({
      ...api,
      createInstance: async (offerId, req, o) => {
        if (n === 1) throw gone(offerId);
        return api.createInstance(offerId, req, o);
      },
    }),
  });
  const res = await run(h, true);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.equal(n, 2);
  assert.ok(
    h.progress.every((p) => p.attempt >= 1 && p.maxAttempts === 3),
    JSON.stringify(h.progress.map((p) => [p.attempt, p.maxAttempts])),
  );
  assert.equal(h.progress[0]!.attempt, 1, 'searching counts as the first attempt');
  const renting = h.progress.filter((p) => p.stage === 'renting');
  assert.equal(renting.at(-1)!.attempt, 2);
  assert.ok(renting.at(-1)!.elapsedMs < 45_000, `elapsed ${renting.at(-1)!.elapsedMs}: counted from the second yes`);
});

/** A harness whose first create is answered `status` without the service acting; the offers asked for are recorded. */
function firstAnswered(status: number, o: Parameters<typeof harness>[0] = {}) {
  const asked: number[] = [];
  const h = harness({
    ...o,
    wrap: (api) => ({
      ...api,
      createInstance: async (offerId, req, opts) => {
        asked.push(offerId);
        if (asked.length === 1)
          throw errorFromResponse(
            'PUT',
            `/api/v0/asks/${offerId}/`,
            status,
            JSON.stringify({ success: false, error: status === 429 ? 'rate_limit_exceeded' : 'server_error', msg: 'x' }),
          );
        return api.createInstance(offerId, req, opts);
      },
    }),
  });
  return { h, asked };
}

test('a 429 on the create is not an attempt: the same offer is sent again and the run counts one attempt', async () => {
  const { h, asked } = firstAnswered(429);
  const res = await run(h, false);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.equal(asked.length, 2);
  assert.equal(asked[0], asked[1], 'the same offer again');
  assert.equal(res.outcome === 'running' ? res.attempts : 0, 1);
});

test('an unclear create answer and an unseen rental, "rent again" chosen: the same offer again as a new attempt; with none left, the reason is said', async () => {
  const again = firstAnswered(500, { prompts: { notFound: async () => 'rent-again' } });
  const res = await run(again.h, true);
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.deepEqual([again.asked.length, again.asked[0]], [2, again.asked[1]]);
  assert.equal(res.outcome === 'running' ? res.attempts : 0, 2);

  const last = firstAnswered(500, { prompts: { notFound: async () => 'rent-again' } });
  const res1 = await runCreateFlow(last.h.ports, { template, templatePath: '.gpu/t.json', confirm: true, maxAttempts: 1 });
  assert.equal(res1.outcome, 'failed', JSON.stringify(res1));
  assert.equal(last.asked.length, 1);
  assert.equal(
    res1.outcome === 'failed' ? res1.message : '',
    `The service gave no clear answer when renting offer ${last.asked[0]}, and the instance list did not show the instance. No instance could be started after 1 attempt(s). Try again later, or loosen the template's offer requirements.`,
  );
});

test("progress while it starts: the service's loading message as one line with secrets masked, none when it has none", async () => {
  let n = 0;
  const h = harness({
    wrap: (api) => ({
      ...api,
      showInstance: async (id, o) => {
        const inst = await api.showInstance(id, o);
        return inst.state === 'loading' ? { ...inst, status_msg: ++n === 1 ? null : 'Pulling\u001b key-7f3c9a' } : inst;
      },
    }),
  });
  const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, secrets: ['key-7f3c9a'] });
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  const id = res.outcome === 'running' ? res.instance.id : 0;
  const loading = [...new Set(h.progress.filter((p) => p.stage === 'loading').map((p) => p.message))];
  assert.deepEqual(loading, [`Instance ${id}: loading image…`, `Instance ${id}: loading image… Pulling ***`]);
  assert.ok(h.progress.some((p) => p.stage === 'running' && p.message === `Instance ${id} is running; waiting for SSH details…`));
  assert.ok(
    h.progress.some((p) => p.stage === 'provisioning' && p.message === `Instance ${id}: provisioning…`),
    JSON.stringify(h.progress),
  );
  assert.ok(
    h.progress.filter((p) => p.stage === 'renting').every((p) => !p.message.includes('(bid')),
    'no bid: none named',
  );
});

test('"rent again" for an unseen rental with no attempt left: the reason is that rental, named', async () => {
  await flowSim.control.fault({ kind: 'hidden', seconds: 100_000, count: 1 });
  const h = harness({ prompts: { notFound: async () => 'rent-again' } });
  const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: true, maxAttempts: 1 });
  assert.equal(res.outcome, 'failed', JSON.stringify(res));
  assert.match(
    res.outcome === 'failed' ? res.message : '',
    /^Instance \d+ \(".+", \$[\d.]+\/h\) was sent, but the instance list has not shown it yet\. It may still appear .*\. No instance could be started after 1 attempt\(s\)/,
  );
});

test('a boot that fails: the question knows no next match when no attempt is left; its progress is shown; the next refused: its log stays in the result', async () => {
  const exiting = (api: ServiceApi): ServiceApi => ({
    ...api,
    createInstance: async (offerId, req, o) => {
      const res = await api.createInstance(offerId, req, o);
      await flowSim.control.fault({ kind: 'instance_state', id: res.new_contract, state: 'exited' });
      return res;
    },
  });
  const asked: FailedBootInfo[] = [];
  const last = harness({ wrap: exiting, prompts: { failedBoot: async (q) => (asked.push(q), 'keep') } });
  const res = await runCreateFlow(last.ports, { template, templatePath: '.gpu/t.json', confirm: true, maxAttempts: 1 });
  assert.equal(res.outcome, 'failed', JSON.stringify(res));
  assert.equal(asked.length, 1);
  assert.ok(!('next' in asked[0]!), 'no attempt left: no next match offered');
  assert.ok(
    last.progress.some((p) => p.stage === 'provisioning' && /became "exited" while starting.*Waiting for your decision/.test(p.message)),
    JSON.stringify(last.progress),
  );

  await flowSim.control.reset();
  let creates = 0;
  const h = harness({
    prompts: { failedBoot: async () => 'destroy-and-rent-next' },
    wrap: (api) => ({
      ...exiting(api),
      createInstance: async (offerId, req, o) => {
        if (++creates === 2) throw gone(offerId);
        return exiting(api).createInstance(offerId, req, o);
      },
    }),
  });
  const res2 = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: true, maxAttempts: 2 });
  assert.equal(res2.outcome, 'failed', JSON.stringify(res2));
  assert.match(res2.outcome === 'failed' ? res2.message : '', /No instance could be started after 2 attempt\(s\)/);
  assert.deepEqual(res2.outcome === 'failed' ? res2.logs?.map((l) => l.status) : [], ['exited']);
});

test('a cancel while the instance starts asks keep or destroy as a cancel, not a timeout', async () => {
  const ac = new AbortController();
  const reasons: string[] = [];
  const h = harness({
    prompts: { keepOrDestroy: async (_id, reason) => (reasons.push(reason), 'keep') },
    wrap: (api) => ({
      ...api,
      showInstance: async (id, o) => {
        const inst = await api.showInstance(id, o);
        ac.abort();
        return inst;
      },
    }),
  });
  const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: true, signal: ac.signal });
  assert.equal(res.outcome, 'cancelled', JSON.stringify(res));
  assert.deepEqual(reasons, ['cancelled']);
});
