// Rentals whose fate the create answer did not tell: a lost or timed-out create, an instance list
// that never shows the label or cannot be read, and "not found" after the grace minute. One click
// must rent at most once, and the rental stays watched. (The flow's other paths: createFlow.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { ServiceApi } from '../../../src/api/types';
import { pollUntilReady, readInflight, runCreateFlow } from '../../../src/create/createFlow';
import { reconcileAmbiguous } from '../../../src/create/pollUntilReady';
import { flowSim, harness, simInstances, template, useFlowSim } from './flowHarness';

useFlowSim();

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
  assert.ok(
    said(`warn create: outcome of renting offer \\d+ is unknown \\(ambiguous: timeout\\); checking the instance list for "${labels[0]}"`),
    h.log.lines.join('\n'),
  );
  assert.ok(said(`info create: the instance list does not show "${labels[0]}" yet (read 1); asking again in 10 s`), h.log.lines.join('\n'));
  assert.ok(
    said(`info create: the instance list showed no instance labelled "${labels[0]}" in 7 reads over 60 s; its fate is unknown`),
    h.log.lines.join('\n'),
  );
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
      assert.deepEqual(
        (await simInstances()).map((i) => i.label),
        [labels[1]],
      );
    }
    // the first rental's label stays watched either way: a late machine is adopted, never forgotten
    assert.deepEqual(
      readInflight(h.state).map((x) => [x.label, x.late]),
      [[labels[0], true]],
    );
  }
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
  assert.ok(
    h.clock.slept.every((ms) => ms === 1000),
    JSON.stringify(h.clock.slept),
  );
  assert.equal(
    h.log.lines.find((l) => l.startsWith('info create:')),
    `info create: the instance list does not show "${label}" yet (read 1); asking again in 1 s`,
  );

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
  assert.deepEqual(
    readInflight(h.state).map((x) => [x.label, x.late]),
    [[labels[0], true]],
  );
  assert.ok(
    h.log.lines.some((l) => l.startsWith(`error create: could not check for "${labels[0]}"`)),
    h.log.lines.join('\n'),
  );

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
