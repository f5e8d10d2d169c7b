// Counterexamples the group fault search (groupFuzz.test.ts, `npm run fuzz`) found, kept as named
// scripts: each must keep the group's money invariants (groupFuzzService.ts checkGroupRun).
import { test } from 'node:test';
import { checkGroupRun, runGroupScript, type GroupScript } from './groupFuzzService';
import { plainScript } from '../create/fuzzService';

const base: GroupScript['base'] = { ...plainScript, bootReads: 0, echoKeys: true };

const REGRESSIONS: Array<{ name: string; script: GroupScript }> = [
  {
    name: "seed 4242: rank 0's create times out unanswered and a read is refused; the others run",
    script: {
      count: 3,
      base: { ...base, creates: [{ kind: 'unproven', acted: false, answer: 'timeout' }], reads: ['500'] },
      overlayCreate: 'ok',
      overlayList: 'ok',
      overlayDelete: 'ok',
    },
  },
];

for (const r of REGRESSIONS) test(r.name, async () => checkGroupRun(await runGroupScript(r.script)));
