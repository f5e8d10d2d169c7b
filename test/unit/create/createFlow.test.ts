import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { Instance, ServiceApi } from '../../../src/api/types';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/ssh/sshTypes';
import {
  INFLIGHT_STATE_KEY,
  pollUntilReady,
  readInflight,
  resumeInflight,
  runCreateFlow,
} from '../../../src/create/createFlow';
import { reconcileAmbiguous } from '../../../src/create/pollUntilReady';
import { flowSim, harness, type Harness, memoryLog, puts, simInstances, template, useFlowSim } from './flowHarness';

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
  // the row appeared before the first poll, and polling ran at the spec's 10 s
  assert.equal(h.upserts[0], r.instance.id);
  assert.ok(h.clock.slept.length >= 6 && h.clock.slept.every((ms) => ms === 10_000), JSON.stringify(h.clock.slept));
  const stages = [...new Set(h.progress.map((p) => p.stage))];
  for (const s of ['searching', 'renting', 'provisioning', 'loading', 'running', 'writing-ssh', 'done']) assert.ok(stages.includes(s as never), `stage ${s} missing: ${stages.join(',')}`);
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

test('ambiguous create (slow server, short client timeout) is reconciled: one click rents once', async () => {
  let creates = 0;
  // margins that hold on a loaded machine (the mutation run): every other read answers well inside the timeout
  const h = harness({
    timeoutMs: 1000,
    wrap: (api) => ({ ...api, createInstance: (...a) => (creates++, api.createInstance(...a)) }),
  });
  await flowSim.control.fault({ kind: 'slow', ms: 2500, path: '/api/v0/asks/', count: 1 });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal(creates, 1, 'the create was sent exactly once');
  const all = await simInstances();
  assert.equal(all.length, 1, 'exactly one instance rented');
  assert.ok(r.outcome === 'running' && r.instance.id === all[0]!.id);
  assert.ok(h.log.lines.some((l) => /unknown/.test(l) && /checking the instance list/.test(l)));
  assert.ok(h.log.lines.some((l) => /the create had gone through/.test(l)));
});

function failingFirstCreate(labels: string[]) {
  return (api: ServiceApi): ServiceApi => ({
    ...api,
    createInstance: async (offerId, req, o) => {
      labels.push(req.label!);
      if (labels.length === 1) throw new ApiError({ kind: 'ambiguous', message: 'PUT /asks timed out', cause: 'timeout' });
      return api.createInstance(offerId, req, o);
    },
  });
}

test('an ambiguous create the list never shows: scripted, nothing else is rented; the answer is unknown and the label stays in flight', async () => {
  const labels: string[] = [];
  const h = harness({ wrap: failingFirstCreate(labels) });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'unknown', JSON.stringify(r));
  assert.equal(labels.length, 1, 'never a second create on its own');
  assert.ok(r.outcome === 'unknown' && r.label === labels[0] && r.instanceId === undefined);
  assert.match(r.outcome === 'unknown' ? r.message : '', /nothing else was rented.*watched/);
  const rec = readInflight(h.state);
  assert.equal(rec.length, 1);
  assert.equal(rec[0]!.label, labels[0]);
  assert.equal(rec[0]!.late, true);
  // the log says why (the create's cause) and what the list showed, in reads and seconds
  const said = (l: string) => h.log.lines.includes(l) || h.log.lines.some((x) => new RegExp(`^${l}$`).test(x));
  assert.ok(said(`warn create: outcome of renting offer \\d+ is unknown \\(ambiguous: timeout\\); checking the instance list for "${labels[0]}"`), h.log.lines.join('\n'));
  assert.ok(said(`info create: the instance list does not show "${labels[0]}" yet (read 1); asking again in 10 s`), h.log.lines.join('\n'));
  assert.ok(said(`info create: the instance list showed no instance labelled "${labels[0]}" in 7 reads over 60 s; its fate is unknown`), h.log.lines.join('\n'));
  assert.ok(!h.log.lines.some((l) => /nothing was rented/i.test(l)), 'a reconciliation log states only what the list showed');
});

test('an ambiguous create the list never shows: interactive, the user is asked, and only "Rent Another" rents again', async () => {
  for (const answer of ['stop', 'rent-again'] as const) {
    await flowSim.control.reset();
    const labels: string[] = [];
    const asked: Array<{ instanceId?: number; label: string }> = [];
    const h = harness({ wrap: failingFirstCreate(labels), prompts: { notFound: async (w) => (asked.push(w), answer) } });
    const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json' });
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.label, labels[0]);
    if (answer === 'stop') {
      assert.equal(r.outcome, 'unknown', JSON.stringify(r));
      assert.equal(labels.length, 1);
    } else {
      assert.equal(r.outcome, 'running', JSON.stringify(r));
      assert.equal(labels.length, 2);
      assert.notEqual(labels[0], labels[1], 'each attempt carries its own label');
      assert.deepEqual((await simInstances()).map((i) => i.label), [labels[1]]);
    }
    // the first rental's label stays watched either way: a late machine is adopted, never forgotten
    assert.deepEqual(readInflight(h.state).map((x) => [x.label, x.late]), [[labels[0], true]]);
  }
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
  assert.ok(r2.outcome === 'failed' && r2.attempts === 2 && /rented by someone else/.test(r2.message) && /after 2 attempt/.test(r2.message), JSON.stringify(r2));
  // the log names the service's code (not the status, not "unavailable")
  assert.equal(h2.log.lines.filter((l) => /^info create: offer \d+ is gone \(no_such_ask\); trying the next match$/.test(l)).length, 2, h2.log.lines.join('\n'));
});

test('an instance that exits while booting is destroyed and the flow retries on another offer', async () => {
  let first: number | undefined;
  const h = harness({
    wrap: (api) => ({
      ...api,
      createInstance: async (offerId, req, o) => {
        const res = await api.createInstance(offerId, req, o);
        if (first === undefined) {
          first = res.new_contract;
          await flowSim.control.fault({ kind: 'instance_state', id: res.new_contract, state: 'exited' });
        }
        return res;
      },
    }),
  });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.ok(r.outcome === 'running' && r.instance.id !== first && r.attempts === 2);
  const all = await simInstances();
  assert.deepEqual(all.map((i) => i.id), [r.outcome === 'running' ? r.instance.id : -1], 'the failed instance was destroyed');
  assert.ok(h.removed.includes(first!));
  assert.ok(h.progress.some((p) => new RegExp(`Instance ${first}.*"exited".*Destroying`).test(p.message)));
  assert.ok(h.log.lines.some((l) => l.startsWith('warn') && /Destroying it/.test(l)));
  assert.ok(h.log.lines.some((l) => l.includes(`destroyed instance ${first}`)));
});

test('every attempt exits while booting: the failure carries each instance\'s log, readable after it was destroyed', async () => {
  const failed: number[] = [];
  const h = harness({
    wrap: (api) => ({
      ...api,
      createInstance: async (offerId, req, o) => {
        const res = await api.createInstance(offerId, req, o);
        failed.push(res.new_contract);
        await flowSim.control.fault({ kind: 'instance_state', id: res.new_contract, state: 'exited' });
        return res;
      },
    }),
  });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, maxAttempts: 2 });
  assert.equal(r.outcome, 'failed', JSON.stringify(r));
  assert.ok(r.outcome === 'failed');
  assert.deepEqual(r.logs?.map((l) => [l.instanceId, l.status]), failed.map((id) => [id, 'exited']));
  assert.deepEqual(await simInstances(), [], 'both failed instances were destroyed');
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
      assert.deepEqual(all.map((i) => i.id), [asked[0]]);
      const inflight = readInflight(h.state);
      assert.deepEqual(inflight.map((x) => [x.instanceId, x.templatePath]), [[asked[0], '.gpu/t.json']]);
      // "restart": new ports over the same persisted state
      const h2 = harness({ state: h.state });
      const readLabel = inflight[0]!.label;
      const res = await resumeInflight(h2.ports, {});
      assert.deepEqual(res, [{ instanceId: asked[0]!, label: readLabel, outcome: 'ready', alias: `gpu-${asked[0]}` }]);
      assert.equal(h2.sshWrites[0]!.id, asked[0]);
      assert.deepEqual(h2.sshWrites[0]!.ssh, template.ssh);
      assert.deepEqual(h.state.get(INFLIGHT_STATE_KEY), []);
    }
  }
});

test('resume reports an instance that failed while VS Code was closed, and drops destroyed ones', async () => {
  const h = harness({ prompts: { keepOrDestroy: async () => 'keep' } });
  const ac = new AbortController();
  const sleep = h.clock.sleep;
  h.ports.clock = { ...h.clock, sleep: async (ms, s) => (await sleep(ms, s), ac.abort()) };
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, signal: ac.signal });
  assert.ok(r.outcome === 'cancelled' && r.keptId);
  const id = r.keptId!;
  await flowSim.control.fault({ kind: 'instance_state', id, state: 'offline' });
  await h.state.update(INFLIGHT_STATE_KEY, [...readInflight(h.state), { ...readInflight(h.state)[0]!, instanceId: 424242, label: 'destroyed-elsewhere-x1y2z3' }]);
  const failed: string[] = [];
  const res = await resumeInflight(harness({ state: h.state }).ports, { onFailed: (_r, m) => failed.push(m) });
  assert.deepEqual(res.map((x) => [x.instanceId, x.outcome]).sort(), [[424242, 'gone'], [id, 'terminal']].sort());
  assert.equal(failed.length, 1);
  assert.match(failed[0]!, /"offline".*Destroy it from the Instances view/);
  assert.deepEqual(readInflight(h.state), []);
});

test('polling backs off on 429 and returns to the 10 s interval', async () => {
  let calls = 0;
  const fake = {
    showInstance: async (id: number) => {
      calls++;
      if (calls <= 2) throw new ApiError({ kind: 'rate_limited', status: 429, message: 'GET /instances failed with HTTP 429' });
      if (calls === 3) return { id, actual_status: 'loading', state: 'loading' } as Instance;
      return { id, actual_status: 'running', state: 'running', ssh_host: 'ssh1.example', ssh_port: 2222 } as Instance;
    },
  } as unknown as ServiceApi;
  const slept: number[] = [];
  const log = memoryLog();
  const out = await pollUntilReady(fake, 7, { now: () => 0, sleep: async (ms) => void slept.push(ms) }, log, { targetState: 'running', intervalMs: 10_000, maxWaitMs: 1e9 });
  assert.equal(out.kind, 'ready');
  assert.deepEqual(slept, [20_000, 40_000, 10_000]);
  assert.deepEqual(log.lines, ['debug create: reading instance 7 failed (rate_limited 429); next try in 20 s', 'debug create: reading instance 7 failed (rate_limited 429); next try in 40 s']);
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

// ---- pollUntilReady on its own: what each state means for the wait ------------------------

/** A show-instance that answers from `script` in turn (the last one repeats); an Error entry is thrown. */
function scriptedShow(script: Array<Partial<Instance> | Error>): { api: ServiceApi; calls: () => number } {
  let n = 0;
  const api = {
    showInstance: async (id: number) => {
      const s = script[Math.min(n++, script.length - 1)]!;
      if (s instanceof Error) throw s;
      return { id, actual_status: s.state ?? null, ...s } as Instance;
    },
  } as unknown as ServiceApi;
  return { api, calls: () => n };
}
const fixedClock = (slept: number[] = []) => {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (slept.push(ms), (t += ms)) };
};
const poll = (api: ServiceApi, target: 'running' | 'stopped', over: { maxWaitMs?: number; signal?: AbortSignal; onUpdate?: (i: Instance) => void } = {}) =>
  pollUntilReady(api, 7, fixedClock(), memoryLog(), { targetState: target, intervalMs: 10_000, maxWaitMs: over.maxWaitMs ?? 1e9, ...(over.signal ? { signal: over.signal } : {}), ...(over.onUpdate ? { onUpdate: over.onUpdate } : {}) });

test('pollUntilReady: ready needs running AND an SSH host and port; stopped ends a wait for either target', async () => {
  const noPort = scriptedShow([{ state: 'running', ssh_host: 'h' }, { state: 'running', ssh_host: 'h', ssh_port: 22 }]);
  assert.equal((await poll(noPort.api, 'running')).kind, 'ready');
  assert.equal(noPort.calls(), 2, 'running without a port is not ready yet');
  const noHost = scriptedShow([{ state: 'running', ssh_port: 22 }, { state: 'running', ssh_host: 'h', ssh_port: 22 }]);
  await poll(noHost.api, 'running');
  assert.equal(noHost.calls(), 2);
  assert.equal((await poll(scriptedShow([{ state: 'stopped', intended_status: 'stopped' }]).api, 'stopped')).kind, 'stopped');
  assert.equal((await poll(scriptedShow([{ state: 'stopped' }]).api, 'running')).kind, 'stopped', 'left stopped while meant to run');
  const stopping = scriptedShow([{ state: 'loading' }, { state: 'stopped' }]);
  assert.equal((await poll(stopping.api, 'stopped')).kind, 'stopped');
  assert.equal(stopping.calls(), 2);
});

test('pollUntilReady: exited, unknown and offline end the wait unless the instance is meant to be stopped', async () => {
  for (const state of ['exited', 'unknown', 'offline'] as const) {
    assert.equal((await poll(scriptedShow([{ state }]).api, 'running')).kind, 'terminal', state);
    assert.equal((await poll(scriptedShow([{ state, intended_status: 'running' }]).api, 'stopped')).kind, 'terminal', `${state} while meant to run`);
    const meantStopped = scriptedShow([{ state, intended_status: 'stopped' }, { state: 'stopped', intended_status: 'stopped' }]);
    assert.equal((await poll(meantStopped.api, 'stopped')).kind, 'stopped', `${state} on the way to stopped`);
    assert.equal(meantStopped.calls(), 2);
  }
  const loading = scriptedShow([{ state: 'loading' }, { state: 'provisioning' }, { state: 'running', ssh_host: 'h', ssh_port: 22 }]);
  const seen: string[] = [];
  assert.equal((await poll(loading.api, 'running', { onUpdate: (i) => seen.push(i.state) })).kind, 'ready');
  assert.deepEqual(seen, ['loading', 'provisioning', 'running'], 'every read reported');
});

test('pollUntilReady: the wait limit, a cancel, and 30 failed reads in a row (not 29, and a good read starts over)', async () => {
  assert.equal((await poll(scriptedShow([{ state: 'loading' }]).api, 'running', { maxWaitMs: 25_000 })).kind, 'timeout');
  const slept: number[] = [];
  const exact = await pollUntilReady(scriptedShow([{ state: 'loading' }]).api, 7, fixedClock(slept), memoryLog(), { targetState: 'running', intervalMs: 10_000, maxWaitMs: 30_000 });
  assert.equal(exact.kind, 'timeout');
  assert.deepEqual(slept, [10_000, 10_000, 10_000], 'reads at 0, 10, 20 and 30 s: the limit reached counts');
  const ac = new AbortController();
  ac.abort();
  assert.equal((await poll(scriptedShow([{ state: 'loading' }]).api, 'running', { signal: ac.signal })).kind, 'aborted');
  const cancelled = new ApiError({ kind: 'aborted', message: 'x' });
  assert.equal((await poll(scriptedShow([cancelled]).api, 'running')).kind, 'aborted');
  const e503 = new ApiError({ kind: 'http', status: 503, message: 'x' });
  const down = scriptedShow([e503]);
  const out = await poll(down.api, 'running');
  assert.equal(out.kind, 'error');
  assert.equal(down.calls(), 30);
  const recovering = scriptedShow([...Array<Error>(29).fill(e503), { state: 'loading' }, ...Array<Error>(29).fill(e503), { state: 'running', ssh_host: 'h', ssh_port: 22 }]);
  assert.equal((await poll(recovering.api, 'running')).kind, 'ready', 'a good read resets the count');
});

test('backoff doubles, never below the threshold, capped at two minutes', async () => {
  const { backoff } = await import('../../../src/create/pollUntilReady');
  assert.equal(backoff(10_000, 2000), 20_000);
  assert.equal(backoff(500, 2000), 2000);
  assert.equal(backoff(1000, 2000), 2000);
  assert.equal(backoff(60_000, 2000), 120_000);
  assert.equal(backoff(70_000, 2000), 120_000);
  assert.equal(backoff(10_000, 200_000), 120_000);
});

// ---- the in-flight records (inflight.ts): what keeps a rental from being forgotten ----------

test('in-flight records: only well-formed ones are read; the same rental is matched by id, else by label', async () => {
  const { putInflight, markLate, markSeen, removeInflight, removeInflightLabel } = await import('../../../src/create/inflight');
  const { MemoryState } = await import('../../kit/state');
  const state = new MemoryState();
  const rec = (over: Partial<Parameters<typeof putInflight>[1]>) => ({ label: 'l', templatePath: 't', ssh: {}, targetState: 'running' as const, startedAt: 1, ...over });
  await state.update(INFLIGHT_STATE_KEY, [null, 'x', 5, {}, { label: '' }, { label: 7 }, { instanceId: 'x', label: 'a' }, rec({ label: 'by-label' }), rec({ instanceId: 3, label: '' }), { instanceId: 4 }]);
  assert.deepEqual(readInflight(state).map((r) => [r.instanceId, r.label]), [[undefined, 'by-label'], [3, ''], [4, undefined]]);
  await state.update(INFLIGHT_STATE_KEY, { not: 'a list' });
  assert.deepEqual(readInflight(state), []);

  await state.update(INFLIGHT_STATE_KEY, undefined);
  await putInflight(state, rec({ label: 'a' }));
  await putInflight(state, rec({ label: 'b' }));
  await putInflight(state, rec({ label: 'a', instanceId: 10, ssh: { user: 'u' } })); // the id arrived: replaces the label's record
  assert.deepEqual(readInflight(state).map((r) => [r.label, r.instanceId]), [['b', undefined], ['a', 10]]);
  assert.deepEqual(state.get(SSH_OPTIONS_STATE_KEY), { '10': { user: 'u' } }, 'with an id, its SSH options are kept');
  await putInflight(state, rec({ label: 'c', instanceId: 10 })); // same id, relabelled
  assert.deepEqual(readInflight(state).map((r) => [r.label, r.instanceId]), [['b', undefined], ['c', 10]]);
  await putInflight(state, rec({ label: 'b', instanceId: 11 }));
  await putInflight(state, rec({ label: 'd', instanceId: 12 }));
  assert.deepEqual(readInflight(state).map((r) => r.instanceId), [10, 11, 12]);

  await markLate(state, { label: 'zzz' });
  assert.equal(readInflight(state).some((r) => r.late), false, 'an unknown label marks nothing');
  await markLate(state, { instanceId: 11, label: 'c' });
  assert.deepEqual(readInflight(state).map((r) => r.late ?? false), [false, true, false], 'by id when both have one, not by label');
  await markLate(state, { label: 'd' });
  assert.deepEqual(readInflight(state).map((r) => r.late ?? false), [false, true, true], 'by label when the reference has no id');
  await markSeen(state, 12);
  await markSeen(state, 99);
  assert.deepEqual(readInflight(state).map((r) => r.seen ?? false), [false, false, true]);
  const before = JSON.stringify(state.data.get(INFLIGHT_STATE_KEY));
  let writes = 0;
  const counting = { get: state.get.bind(state), update: async (k: string, v: unknown) => (writes++, state.update(k, v)) };
  await markSeen(counting, 12);
  assert.equal(writes, 0, 'seen already: nothing written');
  assert.equal(JSON.stringify(state.data.get(INFLIGHT_STATE_KEY)), before);

  await removeInflightLabel(state, 'c');
  assert.equal(readInflight(state).length, 3, 'a record with an id is not removed by its label');
  await putInflight(state, rec({ label: 'gone-offer' }));
  await removeInflightLabel(state, 'gone-offer');
  assert.deepEqual(readInflight(state).map((r) => r.instanceId), [10, 11, 12]);
  await putInflight(state, rec({ label: 'e', instanceId: 13, ssh: { user: 'v' } }));
  await removeInflight(state, 10);
  assert.deepEqual(readInflight(state).map((r) => r.instanceId), [11, 12, 13]);
  assert.ok((state.get(SSH_OPTIONS_STATE_KEY) as Record<string, unknown>)['10'], 'SSH options kept unless asked');
  await removeInflight(state, 13, true);
  assert.deepEqual(readInflight(state).map((r) => r.instanceId), [11, 12]);
  assert.deepEqual(Object.keys(state.get(SSH_OPTIONS_STATE_KEY) as object).sort(), ['10', '11', '12']);
  // a label names one creation: a record with it goes when another id arrives with it; removing by label leaves other labels
  await putInflight(state, rec({ label: 'twice', instanceId: 20 }));
  await putInflight(state, rec({ label: 'twice', instanceId: 21 }));
  assert.deepEqual(readInflight(state).filter((r) => r.label === 'twice').map((r) => r.instanceId), [21]);
  await removeInflight(state, 21);
  await putInflight(state, rec({ label: 'p' }));
  await putInflight(state, rec({ label: 'q' }));
  await removeInflightLabel(state, 'p');
  assert.deepEqual(readInflight(state).filter((r) => r.instanceId === undefined).map((r) => r.label), ['q']);
  await removeInflightLabel(state, 'q');
  // a record whose id has not arrived yet is the rental its label names, even for a reference with the id
  await putInflight(state, rec({ label: 'f' }));
  await markLate(state, { instanceId: 77, label: 'f' });
  assert.equal(readInflight(state).find((r) => r.label === 'f')?.late, true, 'matched by label: the record has no id yet');
  // two rentals without an id are the same only when their labels are
  await putInflight(state, rec({ label: 'g' }));
  await markLate(state, { label: 'h' });
  assert.equal(readInflight(state).find((r) => r.label === 'g')?.late, undefined, 'another label: another rental');
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
  assert.deepEqual(readInflight(h.state).filter((x) => x.instanceId === undefined), [], 'the refused sends left no id-less record');
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
  assert.ok(h.log.lines.some((l) => /refused as too frequent \(429\); sending it again in 30 s/.test(l)), h.log.lines.join('\n'));
  assert.equal(await puts(), 3);
});

test('pollUntilReady: a 429 backs off to at least the show threshold, other failures to the interval; the wait limit counts from the start, whatever the clock reads', async () => {
  const slept429: number[] = [];
  const e429 = new ApiError({ kind: 'rate_limited', status: 429, message: 'x' });
  await pollUntilReady(scriptedShow([e429, { state: 'running', ssh_host: 'h', ssh_port: 22 }]).api, 7, fixedClock(slept429), memoryLog(), { targetState: 'running', intervalMs: 500, maxWaitMs: 1e9 });
  assert.deepEqual(slept429, [2000]);
  const slept503: number[] = [];
  const e503 = new ApiError({ kind: 'http', status: 503, message: 'x' });
  await pollUntilReady(scriptedShow([e503, { state: 'running', ssh_host: 'h', ssh_port: 22 }]).api, 7, fixedClock(slept503), memoryLog(), { targetState: 'running', intervalMs: 500, maxWaitMs: 1e9 });
  assert.deepEqual(slept503, [1000]);
  let t = 1_000_000;
  const late = scriptedShow([{ state: 'loading' }]);
  const out = await pollUntilReady(late.api, 7, { now: () => t, sleep: async (ms) => void (t += ms) }, memoryLog(), { targetState: 'running', intervalMs: 10_000, maxWaitMs: 30_000 });
  assert.equal(out.kind, 'timeout');
  assert.equal(late.calls(), 4, 'reads at 0, 10, 20 and 30 s after the start');
});

test('the message for a rental of unknown fate names the instance when its id is known, else its label', async () => {
  const { unknownResult } = await import('../../../src/create/rentOnce');
  const withId = unknownResult('job-1', 2, 77);
  assert.equal(withId.outcome, 'unknown');
  assert.equal('instanceId' in withId && withId.instanceId, 77);
  assert.match('message' in withId ? withId.message : '', /^Instance 77 \("job-1"\) was sent, but the instance list has not shown it yet/);
  const noId = unknownResult('job-2', 1);
  assert.equal('instanceId' in noId, false);
  assert.match('message' in noId ? noId.message : '', /^The rental labelled "job-2" was sent/);
});

test('an ambiguous create the list never shows: a scripted run never asks, even with a prompt; "Keep Waiting" looks again before asking again', async () => {
  const labels: string[] = [];
  const asked: string[] = [];
  const h = harness({ wrap: failingFirstCreate(labels), prompts: { notFound: async (w) => (asked.push(w.label), 'rent-again') } });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'unknown', JSON.stringify(r));
  assert.deepEqual(asked, [], 'scripted: nobody to ask, and never a second rental');
  assert.equal(labels.length, 1);

  await flowSim.control.reset();
  const labels2: string[] = [];
  const answers = ['wait', 'stop'] as const;
  const asked2: number[] = [];
  const h2 = harness({ wrap: failingFirstCreate(labels2), prompts: { notFound: async (w) => answers[asked2.push(w.waitedMs) - 1]! } });
  const r2 = await runCreateFlow(h2.ports, { template, templatePath: '.gpu/t.json' });
  assert.equal(r2.outcome, 'unknown', JSON.stringify(r2));
  assert.equal(asked2.length, 2, 'asked again after waiting');
  assert.equal(labels2.length, 1);
});

test('reconcileAmbiguous: looks no faster than the list threshold; 10 unreadable lists in a row (not 9; a read in between starts over) settle nothing; a wait limit looks past the minute until it is reached; a cancel looks no more', async () => {
  const LIST = '/instances';
  const label = `never-rented-${Math.random().toString(36).slice(2, 8)}`;
  // an interval below the list threshold: every look still waits the threshold; absent after the minute and two reads
  const h = harness();
  assert.deepEqual(await reconcileAmbiguous(h.ports, label, 500), { absent: true, reads: 61, waitedMs: 60_000 });
  assert.ok(h.clock.slept.every((ms) => ms === 1000), JSON.stringify(h.clock.slept));
  assert.equal(h.log.lines.find((l) => l.startsWith('info create:')), `info create: the instance list does not show "${label}" yet (read 1); asking again in 1 s`);

  // 10 unreadable lists in a row: unknown, each failure backing off from the threshold
  await flowSim.control.fault({ kind: 'http_error', status: 500, path: LIST, count: 10 });
  const h2 = harness();
  const r2 = await reconcileAmbiguous(h2.ports, label, 500);
  assert.ok('unknown' in r2 && r2.unknown === true && r2.error instanceof ApiError && r2.error.status === 500, JSON.stringify(r2));
  assert.deepEqual(h2.clock.slept, [2000, 4000, 8000, 16_000, 32_000, 64_000, 120_000, 120_000, 120_000]);
  // 9, a readable list, 9 more: the count started over, and the delay went back to the threshold
  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'http_error', status: 500, path: LIST, count: 9 });
  let readable = 0;
  const h3 = harness({
    wrap: (api) => ({
      ...api,
      findInstances: async (f, o) => {
        const r = await api.findInstances(f, o);
        if (++readable === 1) await flowSim.control.fault({ kind: 'http_error', status: 500, path: LIST, count: 9 });
        return r;
      },
    }),
  });
  const r3 = await reconcileAmbiguous(h3.ports, label, 500);
  assert.ok('absent' in r3, JSON.stringify(r3));
  assert.equal(h3.clock.slept[9], 1000, 'a good read after failures waits the threshold again');
  assert.deepEqual(h3.clock.slept.slice(10, 19), [2000, 4000, 8000, 16_000, 32_000, 64_000, 120_000, 120_000, 120_000]);

  // with a wait limit: looks past the minute and past 10 failures, until the limit
  await flowSim.control.reset();
  assert.deepEqual(await reconcileAmbiguous(harness().ports, label, 30_000, { maxWaitMs: 120_000 }), { absent: true, reads: 5, waitedMs: 120_000 });
  // the same on a clock that does not read 0 at the start: the limit and the wait reported count from the start
  const offset = harness();
  offset.ports.clock = { now: () => 1_000_000 + offset.clock.now(), sleep: offset.clock.sleep };
  assert.deepEqual(await reconcileAmbiguous(offset.ports, label, 30_000, { maxWaitMs: 120_000 }), { absent: true, reads: 5, waitedMs: 120_000 });
  // and without a limit: absent after the minute, the wait counted from the start too
  const offset2 = harness();
  offset2.ports.clock = { now: () => 1_000_000 + offset2.clock.now(), sleep: offset2.clock.sleep };
  assert.deepEqual(await reconcileAmbiguous(offset2.ports, label, 30_000), { absent: true, reads: 3, waitedMs: 60_000 });
  // 12 unreadable lists (backing off 60 s, then 120 s): the twelfth is at the limit
  await flowSim.control.fault({ kind: 'http_error', status: 500, path: LIST, count: 12 });
  assert.deepEqual(await reconcileAmbiguous(harness().ports, label, 30_000, { maxWaitMs: 1_260_000 }), { absent: true, reads: 0, waitedMs: 1_260_000 });

  // a cancelled look asks nothing
  const before = (await flowSim.control.requests()).length;
  const ac = new AbortController();
  ac.abort();
  assert.deepEqual(await reconcileAmbiguous(harness().ports, label, 500, { signal: ac.signal }), { aborted: true });
  assert.equal((await flowSim.control.requests()).length, before);
});

test('an ambiguous create whose instance list cannot be read: nobody is asked (nothing proves it absent), it stays watched as late; without a not-found prompt an interactive run stops, never renting again', async () => {
  const labels: string[] = [];
  const asked: string[] = [];
  await flowSim.control.fault({ kind: 'http_error', status: 500, path: '/instances', count: 10 });
  const h = harness({ wrap: failingFirstCreate(labels), prompts: { notFound: async (w) => (asked.push(w.label), 'rent-again') } });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json' });
  assert.equal(r.outcome, 'unknown', JSON.stringify(r));
  assert.deepEqual(asked, [], 'an unreadable list is no reason to rent again');
  assert.equal(labels.length, 1);
  assert.deepEqual(readInflight(h.state).map((x) => [x.label, x.late]), [[labels[0], true]]);
  assert.ok(h.log.lines.some((l) => l.startsWith(`error create: could not check for "${labels[0]}"`)), h.log.lines.join('\n'));

  await flowSim.control.reset();
  const labels2: string[] = [];
  const h2 = harness({ wrap: failingFirstCreate(labels2) });
  assert.equal(h2.ports.prompts.notFound, undefined);
  const r2 = await runCreateFlow(h2.ports, { template, templatePath: '.gpu/t.json' });
  assert.equal(r2.outcome, 'unknown', JSON.stringify(r2));
  assert.equal(labels2.length, 1, 'no prompt to ask: stop, not rent again');
  assert.equal(readInflight(h2.state)[0]?.late, true);
});

test('pollUntilReady after the minute of "not found": an unreadable list is no sighting (never shown stays "not found", not "gone"); another instance carrying the label is not the one tracked', async () => {
  const h = harness();
  const opts = { targetState: 'running' as const, intervalMs: 10_000, maxWaitMs: 300_000 };
  await flowSim.control.fault({ kind: 'http_error', status: 500, path: '/api/v1/instances/', exact: true, count: 1 });
  const r = await pollUntilReady(h.api, 999_998, h.clock, h.log, { ...opts, label: 'never-rented-here' });
  assert.equal(r.kind, 'not-found', JSON.stringify(r));
  assert.equal(r.kind === 'not-found' && r.proof.listReads, 2, 'the unreadable list did not count');
  // the unreadable list (its error kind named), then one miss (said once: the unreadable read is no miss), then the verdict
  assert.deepEqual(
    h.log.lines.filter((l) => /instance list/.test(l)),
    [
      'debug create: the instance list could not be read (http); instance 999998 stays tracked',
      'info create: the instance list shows neither instance 999998 nor the label "never-rented-here"; asking again before concluding anything',
      'warn create: the instance list shows neither instance 999998 nor the label "never-rented-here" (2 reads in a row, 80 s after renting), and no read ever showed it: it may still appear',
    ],
  );

  const [offer] = await h.api.searchOffers({ limit: 1 });
  const other = (await h.api.createInstance(offer!.id, { image: 'i', label: 'shared-label', disk: 10, runtype: 'ssh_direct' })).new_contract;
  const seen: number[] = [];
  const r2 = await pollUntilReady(h.api, 999_997, h.clock, h.log, { ...opts, label: 'shared-label', onUpdate: (i) => seen.push(i.id) });
  assert.equal(r2.kind, 'timeout', JSON.stringify(r2));
  assert.deepEqual(seen, [], `instance ${other} carries the label but is not instance 999997`);
});

test('pollUntilReady: when show keeps saying "not found" after the minute but the list shows the instance, the list\'s row is used: it becomes ready', async () => {
  const base = harness();
  const [offer] = await base.api.searchOffers({ limit: 1 });
  const id = (await base.api.createInstance(offer!.id, { image: 'i', label: 'show-lags', disk: 10, runtype: 'ssh_direct' })).new_contract;
  const notFound = new ApiError({ kind: 'http', status: 404, code: 'no_such_instance', message: `GET /instances/${id}/: no such instance` });
  const h = harness({ wrap: (api) => ({ ...api, showInstance: async () => Promise.reject(notFound) }) });
  const r = await pollUntilReady(h.api, id, h.clock, h.log, { targetState: 'running', intervalMs: 10_000, maxWaitMs: 600_000, label: 'show-lags' });
  assert.equal(r.kind, 'ready', JSON.stringify(r));
  assert.equal(r.kind === 'ready' && r.instance.id, id);
  assert.ok(h.clock.now() >= 60_000, 'not before the minute of "not visible yet"');
});
