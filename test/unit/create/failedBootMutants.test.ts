// The failed-boot step (src/create/failedBoot.ts) on its own, with fake ports: each test is written
// to fail if one small change were planted in it (the `create` mutation group, BENCHMARKS.md). The
// flow around it, against the simulator, is in createFlow.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorFromResponse } from '../../../src/api/errors';
import type { Instance, Offer } from '../../../src/api/types';
import { failedBoot, keptCost, serverLine, type FailedBootRun } from '../../../src/create/failedBoot';
import type { CreateFlowPorts, FailedBootAnswer, FailedBootInfo, FailedInstanceLog } from '../../../src/create/flowTypes';
import { putInflight, readInflight } from '../../../src/create/inflight';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';
import { MemoryState } from '../../kit/state';
import { memoryLog } from './flowHarness';

const offer = { id: 77, machine_id: 5, gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.4 } as Offer;
const next = { id: 78, machine_id: 6, gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.45 } as Offer;
const failed = (o: Partial<Instance> = {}): Instance =>
  ({ id: 9, actual_status: 'exited', state: 'exited', status_msg: 'OOM', storage_cost: 0.02, dph_total: 0.4, ...o }) as Instance;

interface Fake {
  run: FailedBootRun;
  state: MemoryState;
  log: ReturnType<typeof memoryLog>;
  asked: FailedBootInfo[];
  destroyed: number[];
  removed: number[];
  progress: string[];
  logRequests: unknown[][];
}

/** A failed-boot run over fake ports: the user answers `answer` (no question: undefined), the log request and the destroy fail as told. */
async function fake(
  o: {
    answer?: FailedBootAnswer | 'none' | 'escape';
    confirm?: boolean;
    signal?: AbortSignal;
    logsFail?: boolean;
    destroyFails?: boolean;
    noStore?: boolean;
  } = {},
): Promise<Fake> {
  const state = new MemoryState();
  await putInflight(state, { instanceId: 9, label: 'box-1', templatePath: 't.json', ssh: { remoteFolder: '/w' }, targetState: 'running', startedAt: 0 });
  const log = memoryLog();
  const f: Omit<Fake, 'run'> = { state, log, asked: [], destroyed: [], removed: [], progress: [], logRequests: [] };
  const failedLogs: FailedInstanceLog[] = [];
  const api = {
    requestLogs: async (...args: unknown[]) => {
      f.logRequests.push(args);
      if (o.logsFail) throw errorFromResponse('PUT', '/api/v0/instances/request_logs/9/', 500, '{}');
      return { result_url: 'https://logs.example/9.txt' };
    },
    destroyInstance: async (id: number) => {
      if (o.destroyFails) throw errorFromResponse('DELETE', `/api/v0/instances/${id}/`, 500, '{}');
      f.destroyed.push(id);
    },
  };
  const answer = o.answer ?? 'keep';
  const prompts = answer === 'none' ? {} : { failedBoot: async (q: FailedBootInfo) => (f.asked.push(q), answer === 'escape' ? undefined : answer) };
  const instances = o.noStore ? {} : { instances: { upsert: () => undefined, watch: () => undefined, remove: (id: number) => void f.removed.push(id) } };
  const ports = { api, log, state, prompts, ...instances } as unknown as CreateFlowPorts;
  const run: FailedBootRun = {
    ports,
    confirm: o.confirm ?? true,
    ...(o.signal ? { signal: o.signal } : {}),
    secrets: ['s3cr3t-token'],
    attempts: 2,
    failedLogs,
    progress: (m) => void f.progress.push(m),
  };
  return { ...f, run };
}

test('serverLine: not text or only blanks is nothing; control and direction characters become one space; a long line is cut at 200', () => {
  assert.equal(serverLine(undefined), undefined);
  assert.equal(serverLine(null), undefined);
  assert.equal(serverLine(' \n\u202e\t '), undefined);
  assert.equal(serverLine('a\u0000b\u001fc\u007fd\u009fe\u200bf\u2028g\u2060h\ufeffi'), 'a b c d e f g h i');
  assert.equal(serverLine('  x \n\n  y  '), 'x y');
  assert.equal(serverLine('key s3cr3t-token here', ['s3cr3t-token']), 'key *** here');
  assert.equal(serverLine('a'.repeat(200)), 'a'.repeat(200));
  assert.equal(serverLine('a'.repeat(201)), `${'a'.repeat(199)}…`);
});

test('keptCost: what it costs while kept, or the most it can cost when the service did not say', () => {
  assert.equal(keptCost(failed(), offer), '$0.020/h');
  assert.equal(keptCost(failed({ state: 'running', dph_total: 1.5 }), offer), '$1.50/h');
  assert.equal(keptCost(failed({ storage_cost: 0 }), offer), 'its disk storage (up to $0.400/h while it holds the GPU)');
  assert.equal(keptCost(failed({ storage_cost: 0 }), { ...offer, dph_total: 2 }), 'its disk storage (up to $2.00/h while it holds the GPU)');
  // $1/h and more: cents
  assert.equal(keptCost(failed({ storage_cost: 1 }), offer), '$1.00/h');
  assert.equal(keptCost(failed({ storage_cost: 0 }), { ...offer, dph_total: 1 }), 'its disk storage (up to $1.00/h while it holds the GPU)');
});

test('the question names the instance, its label, its status and message, what keeping costs and the next match; Escape keeps it', async () => {
  const f = await fake({ answer: 'escape' });
  const step = await failedBoot(f.run, failed({ status_msg: 'OOM\u001b s3cr3t-token' }), offer, 'box-1', next);
  assert.deepEqual(f.asked, [{ instanceId: 9, label: 'box-1', status: 'exited', statusMsg: 'OOM ***', keptCost: '$0.020/h', next }]);
  assert.ok('result' in step);
  const r = step.result;
  assert.ok(r.outcome === 'failed');
  assert.equal(r.keptId, 9);
  assert.equal(r.attempts, 2);
  assert.deepEqual(r.bootFailed, { instanceId: 9, status: 'exited', statusMsg: 'OOM ***' });
  assert.deepEqual(r.logs, [{ instanceId: 9, status: 'exited', resultUrl: 'https://logs.example/9.txt' }]);
  assert.equal(
    r.message,
    'Instance 9 on offer 77 became "exited" while starting (OOM ***). Instance 9 (1× RTX 4090, $0.400/h) is kept and still billing $0.020/h; it is in the Instances view, which keeps watching it. Nothing else was rented. Its log says why it failed (Show Instance Logs). Destroy it there when you no longer need it.',
  );
  assert.deepEqual(readInflight(f.state), [], 'settled: the Instances view tracks it');
  assert.deepEqual(f.destroyed, []);
  assert.ok(
    f.log.lines.includes('warn create: Instance 9 on offer 77 became "exited" while starting (OOM ***). Asking what to do with it.'),
    f.log.lines.join('\n'),
  );
  assert.ok(f.log.lines.includes('info create: keeping failed instance 9 as asked; nothing else is rented'), f.log.lines.join('\n'));
  assert.deepEqual(f.progress, ['Instance 9 on offer 77 became "exited" while starting (OOM ***). Waiting for your decision…']);
});

test('nobody to ask (a script, a host without the question, a cancel): kept, nothing destroyed, no status message left out of the text', async () => {
  for (const o of [{ confirm: false }, { answer: 'none' as const }, { signal: AbortSignal.abort() }]) {
    const f = await fake({ ...o, answer: o.answer ?? 'destroy' });
    const step = await failedBoot(f.run, failed({ actual_status: null, state: 'offline', status_msg: null }), offer, 'box-1', next);
    assert.equal(f.asked.length, 0, JSON.stringify(o));
    assert.ok('result' in step && step.result.outcome === 'failed');
    assert.deepEqual(step.result.bootFailed, { instanceId: 9, status: 'offline' });
    assert.match(step.result.message, /^Instance 9 on offer 77 became "offline" while starting\. Instance 9 /);
    assert.deepEqual(f.destroyed, []);
    assert.ok(
      f.log.lines.includes('warn create: Instance 9 on offer 77 became "offline" while starting. Keeping it (nobody to ask): nothing is destroyed or rented.'),
      f.log.lines.join('\n'),
    );
    assert.ok(f.log.lines.includes('info create: keeping failed instance 9 as nobody was asked; nothing else is rented'), f.log.lines.join('\n'));
    assert.deepEqual(f.progress, ['Instance 9 on offer 77 became "offline" while starting. It is kept.']);
  }
  const unknown = await fake();
  const step = await failedBoot(unknown.run, failed({ actual_status: undefined, state: undefined as unknown as Instance['state'] }), offer, 'box-1', undefined);
  assert.ok('result' in step && step.result.outcome === 'failed' && step.result.bootFailed?.status === 'unknown');
  assert.equal(unknown.asked[0]?.next, undefined, 'no next match: none offered');
  assert.ok(!('next' in unknown.asked[0]!));
});

test('a log request that fails is logged and the step goes on: no log in the result', async () => {
  const f = await fake({ logsFail: true });
  const step = await failedBoot(f.run, failed(), offer, 'box-1', next);
  assert.ok('result' in step && step.result.outcome === 'failed');
  assert.ok(!('logs' in step.result), JSON.stringify(step.result));
  assert.ok(
    f.log.lines.some((l) => l.startsWith('debug create: requesting the log of failed instance 9 failed: ')),
    f.log.lines.join('\n'),
  );
});

test('"destroy and rent the next" with no next match left keeps it: nothing is destroyed', async () => {
  const f = await fake({ answer: 'destroy-and-rent-next' });
  const step = await failedBoot(f.run, failed(), offer, 'box-1', undefined);
  assert.ok('result' in step && step.result.outcome === 'failed' && step.result.keptId === 9);
  assert.deepEqual(f.destroyed, []);
});

test('destroy: destroyed, out of the store, its record and SSH options forgotten; and the next match when asked, at its price', async () => {
  const f = await fake({ answer: 'destroy' });
  await f.state.update(SSH_OPTIONS_STATE_KEY, { '9': { remoteFolder: '/w' }, '10': { remoteFolder: '/x' } });
  const step = await failedBoot(f.run, failed(), offer, 'box-1', next);
  assert.ok('result' in step && step.result.outcome === 'failed');
  assert.equal(step.result.destroyedId, 9);
  assert.equal(step.result.keptId, undefined);
  assert.equal(step.result.attempts, 2);
  assert.deepEqual(step.result.bootFailed, { instanceId: 9, status: 'exited', statusMsg: 'OOM' });
  assert.equal(step.result.logs?.length, 1);
  assert.equal(
    step.result.message,
    'Instance 9 on offer 77 became "exited" while starting (OOM). It was destroyed as you chose; billing for it has stopped. Nothing else was rented.',
  );
  assert.deepEqual([f.destroyed, f.removed], [[9], [9]]);
  assert.deepEqual(readInflight(f.state), []);
  assert.deepEqual(f.state.get(SSH_OPTIONS_STATE_KEY), { '10': { remoteFolder: '/x' } });
  assert.ok(f.log.lines.includes('info create: destroyed instance 9'));
  assert.equal(f.progress.at(-1), 'Instance 9 on offer 77 became "exited" while starting (OOM). Destroying it as you chose…');

  const g = await fake({ answer: 'destroy-and-rent-next' });
  const step2 = await failedBoot(g.run, failed(), offer, 'box-1', next);
  assert.deepEqual(step2, { next: 'Instance 9 on offer 77 became "exited" while starting (OOM).', approvedPrice: 0.45 });
  assert.deepEqual(g.destroyed, [9]);
  assert.ok(g.log.lines.includes('info create: renting the next match (offer 78) as asked'));
});

test('a destroy that fails: kept and named, still billing, nothing else rented (whichever destroy was chosen)', async () => {
  for (const answer of ['destroy', 'destroy-and-rent-next'] as const) {
    const f = await fake({ answer, destroyFails: true });
    const step = await failedBoot(f.run, failed(), offer, 'box-1', next);
    assert.ok('result' in step && step.result.outcome === 'failed', answer);
    assert.equal(step.result.keptId, 9);
    assert.equal(step.result.destroyedId, undefined);
    assert.equal(step.result.attempts, 2);
    assert.deepEqual(step.result.bootFailed, { instanceId: 9, status: 'exited', statusMsg: 'OOM' });
    assert.equal(step.result.logs?.length, 1);
    assert.equal(
      step.result.message,
      'Instance 9 on offer 77 became "exited" while starting (OOM). It could not be destroyed and is still billing $0.020/h. Nothing else was rented. Destroy it from the Instances view.',
    );
    assert.deepEqual(f.removed, []);
    assert.equal(readInflight(f.state).length, 1, 'still in flight: nothing settled it');
    assert.ok(f.log.lines.some((l) => l.startsWith('error create: destroying instance 9 failed: ')));
  }
});

test('the log is asked for with its last 1000 lines, under the signal of the run when there is one', async () => {
  const f = await fake();
  await failedBoot(f.run, failed(), offer, 'box-1', next);
  const signal = new AbortController().signal;
  const g = await fake({ signal });
  await failedBoot(g.run, failed(), offer, 'box-1', next);
  assert.deepEqual(
    [...f.logRequests, ...g.logRequests],
    [
      [9, { tail: 1000 }, undefined],
      [9, { tail: 1000 }, { signal }],
    ],
  );
});

test('a host without an instance store: the destroy still succeeds', async () => {
  const f = await fake({ answer: 'destroy', noStore: true });
  const step = await failedBoot(f.run, failed(), offer, 'box-1', next);
  assert.ok('result' in step && step.result.outcome === 'failed' && step.result.destroyedId === 9, JSON.stringify(step));
  assert.deepEqual(f.destroyed, [9]);
});
