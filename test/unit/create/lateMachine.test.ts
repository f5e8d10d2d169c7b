// A machine the service shows late, through the create flow against the simulator: the grace
// minute and the list reads after it are counted, an ambiguous create is never re-rented on its
// own, and the late machine is adopted. (moneyLate.test.ts runs every scenario as one sweep.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readInflight, runCreateFlow } from '../../../src/create/createFlow';
import { GONE_CONFIRMATIONS, NOT_VISIBLE_WINDOW_MS } from '../../../src/api/visibility';
import { flowSim, harness, puts, template, useFlowSim } from './flowHarness';
import { LATE_SCENARIOS, held, runLateScenario } from './lateScenarios';

useFlowSim();

/** The list reads (v0 or v1) the flow made, with the sim time each was answered at. */
async function listReads(): Promise<number> {
  return (await flowSim.control.requests()).filter((r) => r.method === 'GET' && /^\/api\/v[01]\/instances\/?(\?|$)/.test(r.path)).length;
}

test('after the grace minute one list read without the id and the label settles nothing: visible at 65 s, the flow ends running with one create', async () => {
  // Polls at 0, 10, …, 60 s: at 60 s show says "not found" and the first list read misses it; at 70 s
  // show finds it. A flow that settled on one read would have given up at 60 s.
  await flowSim.control.fault({ kind: 'hidden', seconds: 65 });
  const h = harness();
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r));
  assert.equal(await puts(), 1);
  assert.ok((await listReads()) >= 1, 'the list was asked after the grace minute');
});

test('"not found" needs the grace minute and two list reads, both without the id and the label, counted', async () => {
  await flowSim.control.fault({ kind: 'hidden', seconds: 600 });
  const asked: number[] = [];
  const h = harness({ prompts: { notFound: async (w) => (asked.push(w.waitedMs), 'stop') } });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json' });
  assert.equal(r.outcome, 'unknown', JSON.stringify(r));
  assert.equal(asked.length, 1);
  assert.ok(asked[0]! >= NOT_VISIBLE_WINDOW_MS, `asked after ${asked[0]} ms`);
  // each list look is by id, then by label: two reads per look, GONE_CONFIRMATIONS looks
  assert.equal(await listReads(), 2 * GONE_CONFIRMATIONS);
  assert.equal(await puts(), 1);
  assert.equal((await held()).length, 1);
  assert.equal(readInflight(h.state)[0]!.late, true, 'the rental stays in flight, watched');
  // the first miss is said once, as a miss that concludes nothing; the second is the verdict
  const label = readInflight(h.state)[0]!.label;
  const id = readInflight(h.state)[0]!.instanceId;
  assert.deepEqual(
    h.log.lines.filter((l) => l.includes('the instance list shows neither')).map((l) => l.replace(/ \(2 reads in a row.*$/, ' (2 reads…')),
    [
      `info create: the instance list shows neither instance ${id} nor the label "${label}"; asking again before concluding anything`,
      `warn create: the instance list shows neither instance ${id} nor the label "${label}" (2 reads…`,
    ],
  );
});

test('the ambiguous create of a machine shown late is not re-rented: the create answer lost, invisible for 5 min, one machine adopted by the watcher', async () => {
  const s = LATE_SCENARIOS.find((x) => x.name.startsWith('the create answer lost (timeout), invisible for 5 min'))!;
  const run = await runLateScenario(s);
  assert.equal(run.result?.outcome, 'unknown');
  assert.ok(run.result?.outcome === 'unknown' && run.result.instanceId === undefined, 'the id was never known');
  assert.equal(run.adopted.length, 1);
  assert.ok(
    run.watcher.log.lines.some((l) => /arrived late and was adopted \(ssh gpu-\d+\)/.test(l)),
    run.watcher.log.lines.join('\n'),
  );
});

test('invisible for 90 s, interactive: the user is asked once and "Keep Waiting" ends running, one machine', async () => {
  const run = await runLateScenario(LATE_SCENARIOS.find((x) => x.name === 'invisible for 90 s, interactive: keep waiting')!);
  assert.equal(run.result?.outcome, 'running');
  assert.equal(run.asked, 1);
});

test('invisible for 30 min, scripted: the answer is unknown at once (no second rental), and the watcher adopts it at 30 min', async () => {
  const run = await runLateScenario(LATE_SCENARIOS.find((x) => x.name === 'invisible for 30 min, scripted')!);
  assert.equal(run.result?.outcome, 'unknown');
  assert.ok(run.result?.outcome === 'unknown' && typeof run.result.instanceId === 'number');
  assert.deepEqual(run.adopted, [run.result.outcome === 'unknown' ? run.result.instanceId : -1]);
  // while the list does not show it, the watcher looks less often (doubling to two minutes), and says when it looks next
  const next = run.watcher.log.lines.map((l) => /; still watching for it \(next look in (\d+) s\)$/.exec(l)?.[1]).filter((x) => x !== undefined);
  assert.deepEqual(next.slice(0, 5), ['20', '40', '80', '120', '120'], run.watcher.log.lines.join('\n'));
});

test('a window reload mid-way: the rental persisted in flight is picked up after the reload and ends running, one machine', async () => {
  const run = await runLateScenario(LATE_SCENARIOS.find((x) => x.name === 'invisible for 5 min, interactive: keep waiting, the window reloads after 2 min')!);
  assert.equal(run.result, undefined);
  assert.equal(run.resumed[0]?.outcome, 'ready');
});
