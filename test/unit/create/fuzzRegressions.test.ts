// Every counterexample the fault search (createFuzz.test.ts, `npm run fuzz`) has found, and the
// holes of the third review, as named scripts of the scripted service: each must keep the money
// invariants (fuzzService.ts checkRun).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRun, plainScript, runScript, type FuzzScript } from './fuzzService';

const base: FuzzScript = plainScript;

const REGRESSIONS: Array<{ name: string; script: Partial<FuzzScript>; outcome?: string }> = [
  { name: 'the plain path: one machine, running', script: {}, outcome: 'running' },
  {
    name: 'review 3: shown once, then destroyed from elsewhere while starting: nothing else is rented, reported unknown',
    script: { outsideDestroyAfter: 1 },
    outcome: 'unknown',
  },
  {
    name: 'review 3: shown once, then a lagging replica leaves it out of the list: nothing else is rented, it is found again',
    script: { visibility: [true, ...Array<boolean>(12).fill(false)] },
  },
  {
    name: 'review 3: created, answered 200 {"success":false,"error":"rate_limit_exceeded"}: not sent again',
    script: { creates: [{ kind: 'unproven', acted: true, answer: '2xx:rate_limit_exceeded' }] },
    outcome: 'running',
  },
  {
    name: 'created, answered 200 {"success":false,"error":"no_such_ask"}: the next offer is not rented',
    script: { creates: [{ kind: 'unproven', acted: true, answer: '2xx:no_such_ask' }] },
    outcome: 'running',
  },
  {
    name: 'created, answered 500 with an error body: found through the list, not dropped',
    script: { creates: [{ kind: 'unproven', acted: true, answer: '5xx' }] },
    outcome: 'running',
  },
  {
    name: 'created, answered an unlisted 400: found through the list, not dropped',
    script: { creates: [{ kind: 'unproven', acted: true, answer: 'unlisted-4xx' }] },
    outcome: 'running',
  },
  {
    name: 'fuzz seed 3301: the create answer lost, a key echoed back by a 2xx refusal on the next read: no key in the log',
    script: { creates: [{ kind: 'unproven', acted: true, answer: 'timeout' }], reads: ['2xx-refusal'], bootReads: 0, echoKeys: true },
  },
  {
    name: 'a restart while a lost create is reconciled: the watcher finds it and adopts it',
    script: { creates: [{ kind: 'unproven', acted: true, answer: 'reset' }], visibility: [false, false, false], restartAtSleep: 1 },
  },
  {
    name: 'failed boot: a script meets a machine that exits while starting: kept and named, nothing else rented or destroyed',
    script: { final: 'exited' },
    outcome: 'failed',
  },
  {
    name: 'failed boot: the user keeps it (Escape): nothing else rented or destroyed',
    script: { interactive: true, final: 'exited', failedBoot: ['keep'] },
    outcome: 'failed',
  },
  {
    name: 'failed boot: the user destroys it only: destroyed after the yes, nothing else rented',
    script: { interactive: true, final: 'exited', failedBoot: ['destroy'] },
    outcome: 'failed',
  },
  {
    name: 'failed boot: the user chose Destroy and Rent Next Match, and the destroy answer was lost: the next is not rented',
    script: { interactive: true, final: 'exited', failedBoot: ['destroy-and-rent-next'], destroys: ['timeout-acted'] },
    outcome: 'failed',
  },
  {
    name: 'failed boot: the user chose Destroy and Rent Next Match every time: one machine per yes, bounded by the attempts',
    script: { interactive: true, final: 'exited', failedBoot: ['destroy-and-rent-next', 'destroy-and-rent-next', 'destroy-and-rent-next'] },
    outcome: 'failed',
  },
];

for (const r of REGRESSIONS) {
  test(`fault search regression: ${r.name}`, async () => {
    const run = await runScript({ ...base, ...r.script });
    checkRun(run);
    if (r.outcome) assert.equal(run.result?.outcome, r.outcome, JSON.stringify(run.result));
    assert.ok(run.service.machines.length <= 1 + run.rentAgain, 'one machine, and one more per "rent another" the user chose');
  });
}
