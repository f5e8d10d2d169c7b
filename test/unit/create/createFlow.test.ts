// The create flow against the simulator: search, confirm, rent, poll to running, the SSH entry,
// and what a declined price, a taken offer, a machine that exits while booting, a cancel, a resume
// and a 429 on the create do. (Unknown fates: ambiguousCreate.test.ts; the wait's rules: pollRules.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { ServiceApi } from '../../../src/api/types';
import { INFLIGHT_STATE_KEY, readInflight, resumeInflight, runCreateFlow, type FailedBootInfo } from '../../../src/create/createFlow';
import { flowSim, harness, type Harness, puts, simInstances, template, useFlowSim } from './flowHarness';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';
import { DEFAULT_GUARD, guardRequestFor, installedGuard } from '../../../src/guard/plan';
import { SERVICE_THRESHOLDS_MS } from '../../../src/api/pacing';

useFlowSim();

function assertNoSecrets(h: Harness) {
  const text = h.log.lines.join('\n');
  assert.ok(!text.includes('sim-api-key'), 'API key in log');
}

test('happy path: search, confirm, rent, poll to running, write the SSH entry', async () => {
  const h = harness();
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', onstart: 'echo hi' });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  if (r.outcome !== 'running') return;
  assert.equal(r.alias, `gpu-${r.instance.id}`);
  assert.ok(r.instance.ssh_host && r.instance.ssh_port);
  assert.equal(r.attempts, 1);
  assert.equal(h.confirms.length, 1);
  assert.ok(['RTX 4090', 'RTX 3090'].includes(h.confirms[0]!.gpu_name));
  assert.deepEqual(h.sshWrites, [{ id: r.instance.id, host: r.instance.ssh_host, port: r.instance.ssh_port, ssh: template.ssh }]);
  // the row appeared before the first poll, and polling ran at the service's show threshold (2 s) while it booted
  assert.equal(h.upserts[0], r.instance.id);
  assert.ok(h.clock.slept.length >= 6 && h.clock.slept.every((ms) => ms === SERVICE_THRESHOLDS_MS.show), JSON.stringify(h.clock.slept));
  const stages = [...new Set(h.progress.map((p) => p.stage))];
  for (const s of ['searching', 'renting', 'provisioning', 'loading', 'running', 'writing-ssh', 'done'])
    assert.ok(stages.includes(s as never), `stage ${s} missing: ${stages.join(',')}`);
  assert.match(h.progress.find((p) => p.stage === 'renting')!.message, /\(1\/3\)/);
  // the label carries a unique suffix; the instance is the one rented; in-flight state is cleared
  const all = await simInstances();
  assert.equal(all.length, 1);
  assert.match(all[0]!.label ?? '', /^Unit-test-box-[0-9a-z]{4}$/);
  assert.deepEqual(readInflight(h.state), []);
  assert.deepEqual(h.state.get(SSH_OPTIONS_STATE_KEY), { [String(r.instance.id)]: template.ssh });
  assertNoSecrets(h);
});

test('declining the price confirmation rents nothing', async () => {
  const h = harness({ prompts: { confirmRent: async () => false } });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json' });
  assert.equal(r.outcome, 'cancelled');
  assert.equal(await puts(), 0);
});

test('waiting too long asks keep or destroy (timeout)', async () => {
  const reasons: string[] = [];
  const h = harness({ prompts: { keepOrDestroy: async (_id, reason) => (reasons.push(reason), 'destroy') } });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, maxWaitMs: 20_000 });
  assert.equal(r.outcome, 'cancelled');
  assert.deepEqual(reasons, ['timeout']);
  assert.equal((await simInstances()).length, 0);
});

test('an offer taken by someone else moves to the next match, bounded', async () => {
  const h = harness({
    prompts: {
      pickOffer: async (offers) => {
        await flowSim.control.fault({ kind: 'offer_taken', offerId: offers[0]!.id });
        return offers[0];
      },
    },
  });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json' });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal(r.outcome === 'running' && r.attempts, 2);
  assert.ok(h.progress.some((p) => /rented by someone else/.test(p.message) && /next match/.test(p.message)));
  assert.match(h.progress.filter((p) => p.stage === 'renting').at(-1)!.message, /\(2\/3\)/);
  assert.equal((await simInstances()).length, 1);

  // every offer taken: gives up after maxAttempts with a clear message
  await flowSim.control.reset();
  const h2 = harness({ prompts: { confirmRent: async () => true } });
  const takeAll: ServiceApi = {
    ...h2.api,
    createInstance: async () => {
      throw new ApiError({ kind: 'http', status: 410, code: 'no_such_ask', message: 'PUT /asks failed with HTTP 410' });
    },
  };
  h2.ports.api = takeAll;
  const r2 = await runCreateFlow(h2.ports, { template, templatePath: '.gpu/t.json', maxAttempts: 2 });
  assert.equal(r2.outcome, 'failed');
  assert.ok(
    r2.outcome === 'failed' && r2.attempts === 2 && /rented by someone else/.test(r2.message) && /after 2 attempt/.test(r2.message),
    JSON.stringify(r2),
  );
  // the log names the service's code (not the status, not "unavailable")
  assert.equal(
    h2.log.lines.filter((l) => /^info create: offer \d+ is gone \(no_such_ask: rented by someone else, or withdrawn.*\); trying the next match$/.test(l))
      .length,
    2,
    h2.log.lines.join('\n'),
  );
});

/** A harness whose first `failing` rentals become "exited" at once (the simulator's fault); their ids in order. */
function failingBoots(failing: number, o: Parameters<typeof harness>[0] = {}): { h: Harness; failed: number[] } {
  const failed: number[] = [];
  const h = harness({
    ...o,
    wrap: (api) => {
      const inner = o.wrap ? o.wrap(api) : api;
      return {
        ...inner,
        createInstance: async (offerId, req, opts) => {
          const res = await inner.createInstance(offerId, req, opts);
          if (failed.length < failing) {
            failed.push(res.new_contract);
            await flowSim.control.fault({ kind: 'instance_state', id: res.new_contract, state: 'exited' });
          }
          return res;
        },
      };
    },
  });
  return { h, failed };
}

test('a failed boot in a script (confirm: false) is kept, tracked and named: nothing else is rented or destroyed', async () => {
  // Before: the flow destroyed it by itself and rented the next match (two machines for one click).
  const { h, failed } = failingBoots(1);
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'failed', JSON.stringify(r));
  assert.ok(r.outcome === 'failed');
  assert.equal(await puts(), 1, 'one rental for one click');
  assert.equal(r.keptId, failed[0]);
  assert.deepEqual(r.bootFailed, { instanceId: failed[0], status: 'exited', statusMsg: r.bootFailed?.statusMsg });
  assert.match(r.message, new RegExp(`Instance ${failed[0]} on offer \\d+ became "exited" while starting`));
  assert.match(r.message, /kept and still billing \$[\d.]+\/h.*Instances view.*Nothing else was rented/);
  assert.deepEqual(
    (await simInstances()).map((i) => i.id),
    failed,
    'nothing was destroyed',
  );
  assert.ok(!h.removed.includes(failed[0]!), 'it stays in the Instances view');
  assert.deepEqual(readInflight(h.state), [], 'settled: the Instances view tracks it, not the in-flight records');
  assert.deepEqual(
    r.logs?.map((l) => [l.instanceId, l.status]),
    [[failed[0], 'exited']],
    'its log was requested',
  );
  assert.ok(!h.log.lines.some((l) => /destroy/i.test(l) && !/nothing is destroyed/.test(l)), h.log.lines.join('\n'));
});

test('a failed boot, interactive: one question names it, its status, its cost and the next match; each answer is honoured', async () => {
  for (const answer of ['destroy-and-rent-next', 'destroy', 'keep'] as const) {
    await flowSim.control.reset();
    const asked: FailedBootInfo[] = [];
    const { h, failed } = failingBoots(1, { prompts: { failedBoot: async (what) => (asked.push(what), answer) } });
    const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json' });
    assert.equal(asked.length, 1, `${answer}: asked once`);
    const q = asked[0]!;
    assert.equal(q.instanceId, failed[0]);
    assert.equal(q.status, 'exited');
    assert.match(q.keptCost, /^\$[\d.]+\/h/);
    assert.ok(q.next && q.next.id !== undefined && typeof q.next.dph_total === 'number', 'the next match, with its price');
    const live = (await simInstances()).map((i) => i.id);
    if (answer === 'destroy-and-rent-next') {
      assert.equal(r.outcome, 'running', JSON.stringify(r));
      assert.ok(r.outcome === 'running' && r.instance.id !== failed[0] && r.attempts === 2);
      assert.deepEqual(live, [r.outcome === 'running' ? r.instance.id : -1], 'the failed one destroyed, the next one running');
      assert.equal(await puts(), 2);
      // the question showed the next match's price: choosing it is its confirmation, not asked again
      assert.equal(h.confirms.length, 1, 'one price confirmation');
      assert.ok(q.next!.dph_total >= h.confirms[0]!.dph_total);
    } else {
      assert.equal(r.outcome, 'failed', JSON.stringify(r));
      assert.equal(await puts(), 1, `${answer}: nothing else rented`);
      if (answer === 'destroy') {
        assert.ok(r.outcome === 'failed' && r.destroyedId === failed[0] && r.keptId === undefined && /destroyed as you chose/.test(r.message));
        assert.deepEqual(live, []);
        assert.ok(h.removed.includes(failed[0]!));
      } else {
        assert.ok(r.outcome === 'failed' && r.keptId === failed[0]);
        assert.deepEqual(live, failed);
      }
    }
    assertNoSecrets(h);
  }
});

test("a failed boot's status message is shown as one plain line: no control or direction characters, secrets masked", async () => {
  const secret = 'tmpl-secret-93f1a7c2d4e5';
  const asked: FailedBootInfo[] = [];
  const { h } = failingBoots(1, {
    prompts: { failedBoot: async (what) => (asked.push(what), 'keep') },
    wrap: (api) => ({
      ...api,
      showInstance: async (id, o) => ({ ...(await api.showInstance(id, o)), status_msg: `OOM\n\u001b[31mkilled\u202e token=${secret} ${secret}` }),
    }),
  });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', secrets: [secret] });
  assert.equal(r.outcome, 'failed');
  const shown = [asked[0]!.statusMsg ?? '', r.outcome === 'failed' ? r.message : '', ...h.progress.map((p) => p.message), ...h.log.lines].join('\n');
  assert.ok(!shown.includes(secret), shown);
  assert.ok(!/[\u0000-\u0009\u000b-\u001f\u202e]/.test(shown), 'no control or direction characters');
  assert.match(asked[0]!.statusMsg ?? '', /^OOM \[31mkilled token=\*\*\* \*\*\*$/);
});

test('every boot fails and the user always rents the next match: bounded by the attempts, each log kept, readable after the destroy', async () => {
  const { h, failed } = failingBoots(99, { prompts: { failedBoot: async (what) => (what.next ? 'destroy-and-rent-next' : 'destroy') } });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', maxAttempts: 2 });
  assert.equal(r.outcome, 'failed', JSON.stringify(r));
  assert.ok(r.outcome === 'failed');
  assert.equal(failed.length, 2);
  assert.deepEqual(
    r.logs?.map((l) => [l.instanceId, l.status]),
    failed.map((id) => [id, 'exited']),
  );
  assert.deepEqual(await simInstances(), [], 'both failed instances were destroyed, as chosen');
  const text = await h.api.fetchLogs(r.logs![0]!.resultUrl, { intervalMs: 50, attempts: 100 });
  assert.match(text, /exited with code 137/);
});

test('cancel after renting asks; "destroy" destroys, "keep" keeps it tracked and a restart resumes it', async () => {
  for (const answer of ['destroy', 'keep'] as const) {
    await flowSim.control.reset();
    const ac = new AbortController();
    const asked: number[] = [];
    const h = harness({ prompts: { keepOrDestroy: async (id) => (asked.push(id), answer) } });
    const sleep = h.clock.sleep;
    h.ports.clock = { ...h.clock, sleep: async (ms, s) => (await sleep(ms, s), ac.abort()) };
    const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, signal: ac.signal });
    assert.equal(r.outcome, 'cancelled', JSON.stringify(r));
    assert.equal(asked.length, 1);
    const all = await simInstances();
    if (answer === 'destroy') {
      assert.ok(r.outcome === 'cancelled' && r.destroyedId === asked[0]);
      assert.equal(all.length, 0);
      assert.deepEqual(readInflight(h.state), []);
    } else {
      assert.ok(r.outcome === 'cancelled' && r.keptId === asked[0]);
      assert.deepEqual(
        all.map((i) => i.id),
        [asked[0]],
      );
      const inflight = readInflight(h.state);
      assert.deepEqual(
        inflight.map((x) => [x.instanceId, x.templatePath]),
        [[asked[0], '.gpu/t.json']],
      );
      // "restart": new ports over the same persisted state
      const h2 = harness({ state: h.state });
      const readLabel = inflight[0]!.label;
      const res = await resumeInflight(h2.ports, {});
      assert.deepEqual(
        res.map(({ instance, ...r }) => ({ ...r, id: instance?.id })),
        [{ instanceId: asked[0]!, label: readLabel, outcome: 'ready', alias: `gpu-${asked[0]}`, id: asked[0]! }],
      );
      assert.equal(h2.sshWrites[0]!.id, asked[0]);
      assert.deepEqual(h2.sshWrites[0]!.ssh, template.ssh);
      assert.deepEqual(h.state.get(INFLIGHT_STATE_KEY), []);
    }
  }
});

test('resume reports an instance that failed while VS Code was closed, and keeps watching one the list no longer shows (destroyed elsewhere, or a lagging list: no proof)', async () => {
  const h = harness({ prompts: { keepOrDestroy: async () => 'keep' } });
  const ac = new AbortController();
  const sleep = h.clock.sleep;
  h.ports.clock = { ...h.clock, sleep: async (ms, s) => (await sleep(ms, s), ac.abort()) };
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, signal: ac.signal });
  assert.ok(r.outcome === 'cancelled' && r.keptId);
  const id = r.keptId!;
  await flowSim.control.fault({ kind: 'instance_state', id, state: 'offline' });
  await h.state.update(INFLIGHT_STATE_KEY, [
    ...readInflight(h.state),
    { ...readInflight(h.state)[0]!, instanceId: 424242, label: 'destroyed-elsewhere-x1y2z3' },
  ]);
  const failed: string[] = [];
  const res = await resumeInflight(harness({ state: h.state }).ports, { onFailed: (_r, m) => failed.push(m) });
  assert.deepEqual(
    res.map((x) => [x.instanceId, x.outcome]).sort(),
    [
      [424242, 'timeout'],
      [id, 'terminal'],
    ].sort(),
  );
  assert.equal(failed.length, 1);
  assert.match(failed[0]!, /"offline".*Destroy it from the Instances view/);
  assert.deepEqual(
    readInflight(h.state).map((r) => r.instanceId),
    [424242],
    'still in flight: watched on the next start, adopted if it appears',
  );
});

test('a rental not shown running a day after it was sent is no longer watched: its records go, the others stay, and the log says so', async () => {
  const h = harness();
  const [offer] = await h.api.searchOffers({ limit: 1 });
  const id = (await h.api.createInstance(offer!.id, { image: 'i', label: 'sent-a-day-ago', disk: 10, runtype: 'ssh_direct' })).new_contract;
  await flowSim.control.fault({ kind: 'instance_state', id, state: 'loading' });
  const base = { ssh: {}, targetState: 'running' as const };
  await h.state.update(INFLIGHT_STATE_KEY, [
    { ...base, instanceId: id, label: 'sent-a-day-ago', startedAt: Date.now() - 25 * 3600_000 },
    { ...base, label: 'sent-a-day-ago', startedAt: Date.now() - 25 * 3600_000 },
    { ...base, instanceId: id + 1, label: 'sent-just-now', startedAt: Date.now() },
  ]);
  const res = await resumeInflight(h.ports, { only: [id], maxWaitMs: 60_000 });
  assert.deepEqual(
    res.map((x) => x.outcome),
    ['timeout'],
  );
  assert.deepEqual(
    readInflight(h.state).map((x) => x.label),
    ['sent-just-now'],
  );
  assert.ok(
    h.log.lines.includes(`warn create: the rental "sent-a-day-ago" (instance ${id}) has not appeared in a day; no longer watching it`),
    h.log.lines.join('\n'),
  );
});

test('the bid changed in the confirmation is the price sent, and the clock starts at the click on Rent', async () => {
  const bidTemplate = { ...template, offer: { ...template.offer, type: 'bid' as const, bidPrice: 0.3 } };
  const h: Harness = harness({
    prompts: {
      confirmRent: async (_offer, _t, bid) => {
        assert.equal(bid, 0.3, 'the template bid is offered first');
        // The user looked at the dialog for a minute, then raised the bid and clicked Rent.
        await h.clock.sleep(60_000);
        return { bidPrice: 0.45 };
      },
    },
  });
  const r = await runCreateFlow(h.ports, { template: bidTemplate, templatePath: '.gpu/t.json' });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  const mine = (await simInstances()).find((i) => r.outcome === 'running' && i.id === r.instance.id);
  assert.equal(mine?.is_bid, true);
  assert.equal(mine?.dph_base, 0.45, 'rented at the new bid');
  const renting = h.progress.find((p) => p.stage === 'renting')!;
  assert.match(renting.message, /bid \$0\.45\/h/);
  assert.ok(renting.elapsedMs < 60_000, `the minute in the dialog is not counted (elapsed ${renting.elapsedMs} ms)`);
});

test('a 429 on the create waits the creation penalty three times at most, then fails with nothing rented; a cancel during the wait rents nothing', async () => {
  const CREATE = '/api/v0/asks/';
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: CREATE, count: 3 });
  const h = harness();
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal(r.outcome === 'running' && r.attempts, 1, 'a refused request is not an attempt');
  assert.deepEqual(h.clock.slept.slice(0, 3), [12_000, 12_000, 12_000], 'the penalty of the pacing table, each time');
  assert.equal(h.progress.filter((p) => /slow down; trying again in 12 s/.test(JSON.stringify(p))).length, 3);
  assert.deepEqual(
    readInflight(h.state).filter((x) => x.instanceId === undefined),
    [],
    'the refused sends left no id-less record',
  );
  assert.equal(await puts(), 4);

  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: CREATE, count: 4 });
  const h2 = harness();
  const r2 = await runCreateFlow(h2.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r2.outcome, 'failed', JSON.stringify(r2));
  assert.equal(await puts(), 4, 'the fourth 429 is not waited out');
  assert.deepEqual(readInflight(h2.state), [], 'nothing rented, nothing left in flight');
  assert.deepEqual(await simInstances(), []);

  // cancelled during the wait: nothing rented, said so
  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: CREATE, count: 1 });
  const ac = new AbortController();
  const h3 = harness();
  const sleep = h3.clock.sleep;
  h3.ports.clock = { now: h3.clock.now, sleep: async (ms, signal) => (ac.abort(), sleep(ms, signal)) };
  const r3 = await runCreateFlow(h3.ports, { template, templatePath: '.gpu/t.json', confirm: false, signal: ac.signal });
  assert.deepEqual(r3, { outcome: 'cancelled', message: 'Cancelled. Nothing was rented.' });
  assert.equal(await puts(), 1);
});

test('a 429 on the create that asks for a longer wait (Retry-After) is waited out as asked; a shorter one still waits the creation penalty', async () => {
  const CREATE = '/api/v0/asks/';
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: CREATE, retryAfter: 30 });
  await flowSim.control.fault({ kind: 'http_error', status: 429, path: CREATE, retryAfter: 5 });
  const h = harness();
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.deepEqual(h.clock.slept.slice(0, 2), [30_000, 12_000], 'the longer of Retry-After and the penalty, each time');
  assert.equal(h.progress.filter((p) => /slow down; trying again in 30 s/.test(JSON.stringify(p))).length, 1);
  assert.ok(
    h.log.lines.some((l) => /refused as too frequent \(429\); sending it again in 30 s/.test(l)),
    h.log.lines.join('\n'),
  );
  assert.equal(await puts(), 3);
});

test("the idle guard travels in the request: its watchdog in env beside the template's own, the offer's GPU count on its launch line", async () => {
  // A CPU-only machine: the watchdog must not expect nvidia-smi there.
  const cpu = flowSim.sim.state.offers.filter((o) => template.offer!.gpuNames!.includes(o.gpu_name));
  const before = cpu.map((o) => o.num_gpus);
  cpu.forEach((o) => (o.num_gpus = 0));
  try {
    const h = harness();
    const guard = guardRequestFor(undefined, 'ssh_direct', DEFAULT_GUARD, flowSim.sim.url);
    const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', onstart: 'echo hi', guard });
    assert.equal(r.outcome, 'running', JSON.stringify(r));
    if (r.outcome !== 'running') return;
    const inst = flowSim.sim.state.instances.get(r.instance.id)!;
    assert.equal(inst.env.FOO, 'bar', "the template's env is kept");
    assert.ok(/^[A-Za-z0-9+/=]{500,}$/.test(inst.env.GPU_GUARD_SCRIPT ?? ''), 'the packed watchdog');
    assert.match(inst.onstart ?? '', /GPU_GUARD_GPUS='0' nohup sh /);
    assert.ok(inst.onstart!.endsWith('echo hi\n'));
    assert.ok(installedGuard(inst.onstart));
    assertNoSecrets(h);
  } finally {
    cpu.forEach((o, i) => (o.num_gpus = before[i]!));
  }
});
