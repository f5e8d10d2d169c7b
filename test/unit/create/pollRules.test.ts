// What the create flow's wait makes of each answer, on its own (no simulator): the states that
// end a wait, the backoff, the wait limit, and the in-flight records that keep a rental from
// being forgotten. (The flow against the simulator: createFlow.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import { SERVICE_THRESHOLDS_MS, STATUS_FAST_WINDOW_MS, statusPollDelay } from '../../../src/api/pacing';
import type { Instance, ServiceApi } from '../../../src/api/types';

import { INFLIGHT_STATE_KEY, pollUntilReady, readInflight } from '../../../src/create/createFlow';
import { memoryLog } from './flowHarness';
import { EchoingState } from '../../kit/state';
import { markSeen, removeInflight } from '../../../src/create/inflight';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';

test('a 429 slows the status reads (doubling from the 2 s show threshold); the next good read returns to the threshold', async () => {
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
  const out = await pollUntilReady(fake, 7, { now: () => 0, sleep: async (ms) => void slept.push(ms) }, log, {
    targetState: 'running',
    intervalMs: 10_000,
    maxWaitMs: 1e9,
  });
  assert.equal(out.kind, 'ready');
  assert.deepEqual(slept, [4000, 8000, 2000]);
  assert.deepEqual(log.lines, [
    'debug create: reading instance 7 failed (rate_limited 429); next try in 4 s',
    'debug create: reading instance 7 failed (rate_limited 429); next try in 8 s',
  ]);
});

test('while a machine boots, status reads start at the 2 s show threshold, back off by half while nothing changes after the fast window, up to the interval; a change starts over', async () => {
  // Loading with the same status text for 10 minutes, then a new status text, then running.
  let t = 0;
  const slept: number[] = [];
  const clock = { now: () => t, sleep: async (ms: number) => void (slept.push(ms), (t += ms)) };
  const reads: number[] = [];
  const api = {
    showInstance: async (id: number) => {
      reads.push(t);
      if (t < 600_000) return { id, actual_status: 'loading', state: 'loading', status_msg: 'pulling' } as Instance;
      if (t < 620_000) return { id, actual_status: 'loading', state: 'loading', status_msg: 'extracting' } as Instance;
      return { id, actual_status: 'running', state: 'running', ssh_host: 'h', ssh_port: 22 } as Instance;
    },
  } as unknown as ServiceApi;
  const out = await pollUntilReady(api, 7, clock, memoryLog(), { targetState: 'running', intervalMs: 10_000, maxWaitMs: 1e9 });
  assert.equal(out.kind, 'ready');
  const fast = SERVICE_THRESHOLDS_MS.show;
  const inWindow = STATUS_FAST_WINDOW_MS / fast;
  assert.deepEqual(slept.slice(0, inWindow), Array<number>(inWindow).fill(fast), 'every 2 s for the first three minutes');
  assert.deepEqual(slept.slice(inWindow, inWindow + 5), [3000, 4500, 6750, 10_000, 10_000], 'then half again longer per read, capped at the interval');
  const change = reads.findIndex((r) => r >= 600_000);
  assert.deepEqual(slept.slice(change, change + 3), [fast, fast, fast], 'a new status text: back to every 2 s');
  assert.ok(
    slept.every((ms) => ms >= fast && ms <= 10_000),
    'never faster than the service allows, never slower than the interval',
  );
  assert.ok(t - 620_000 <= fast, 'running is seen within one show threshold of being reported');
});

test('statusPollDelay: the show threshold, never faster; the interval when it is shorter (no pacing); growth only after the window', () => {
  assert.equal(statusPollDelay({ sinceChangeMs: 0, lastDelayMs: 0, slowestMs: 10_000 }), 2000);
  assert.equal(statusPollDelay({ sinceChangeMs: STATUS_FAST_WINDOW_MS - 1, lastDelayMs: 9000, slowestMs: 10_000 }), 2000);
  assert.equal(statusPollDelay({ sinceChangeMs: STATUS_FAST_WINDOW_MS, lastDelayMs: 2000, slowestMs: 10_000 }), 3000);
  assert.equal(statusPollDelay({ sinceChangeMs: STATUS_FAST_WINDOW_MS, lastDelayMs: 500, slowestMs: 10_000 }), 2000, 'never under the threshold');
  assert.equal(statusPollDelay({ sinceChangeMs: STATUS_FAST_WINDOW_MS, lastDelayMs: 9000, slowestMs: 10_000 }), 10_000);
  assert.equal(statusPollDelay({ sinceChangeMs: 1e9, lastDelayMs: 60_000, slowestMs: 30_000 }), 30_000, 'a 429 backoff comes down to the interval');
  assert.equal(statusPollDelay({ sinceChangeMs: 0, lastDelayMs: 0, slowestMs: 50 }), 50);
  assert.equal(statusPollDelay({ sinceChangeMs: 1e9, lastDelayMs: 50, slowestMs: 50 }), 50);
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
  pollUntilReady(api, 7, fixedClock(), memoryLog(), {
    targetState: target,
    intervalMs: 10_000,
    maxWaitMs: over.maxWaitMs ?? 1e9,
    ...(over.signal ? { signal: over.signal } : {}),
    ...(over.onUpdate ? { onUpdate: over.onUpdate } : {}),
  });

test('pollUntilReady: ready needs running AND an SSH host and port; stopped ends a wait for either target', async () => {
  const noPort = scriptedShow([
    { state: 'running', ssh_host: 'h' },
    { state: 'running', ssh_host: 'h', ssh_port: 22 },
  ]);
  assert.equal((await poll(noPort.api, 'running')).kind, 'ready');
  assert.equal(noPort.calls(), 2, 'running without a port is not ready yet');
  const noHost = scriptedShow([
    { state: 'running', ssh_port: 22 },
    { state: 'running', ssh_host: 'h', ssh_port: 22 },
  ]);
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
    const meantStopped = scriptedShow([
      { state, intended_status: 'stopped' },
      { state: 'stopped', intended_status: 'stopped' },
    ]);
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
  const exact = await pollUntilReady(scriptedShow([{ state: 'loading' }]).api, 7, fixedClock(slept), memoryLog(), {
    targetState: 'running',
    intervalMs: 10_000,
    maxWaitMs: 30_000,
  });
  assert.equal(exact.kind, 'timeout');
  assert.deepEqual(slept, Array<number>(15).fill(2000), 'reads every 2 s from 0 to 30 s (the show threshold while it boots): the limit reached counts');
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
  const recovering = scriptedShow([
    ...Array<Error>(29).fill(e503),
    { state: 'loading' },
    ...Array<Error>(29).fill(e503),
    { state: 'running', ssh_host: 'h', ssh_port: 22 },
  ]);
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
  const rec = (over: Partial<Parameters<typeof putInflight>[1]>) => ({
    label: 'l',
    templatePath: 't',
    ssh: {},
    targetState: 'running' as const,
    startedAt: 1,
    ...over,
  });
  await state.update(INFLIGHT_STATE_KEY, [
    null,
    'x',
    5,
    {},
    { label: '' },
    { label: 7 },
    { instanceId: 'x', label: 'a' },
    rec({ label: 'by-label' }),
    rec({ instanceId: 3, label: '' }),
    { instanceId: 4 },
  ]);
  assert.deepEqual(
    readInflight(state).map((r) => [r.instanceId, r.label]),
    [
      [undefined, 'by-label'],
      [3, ''],
      [4, undefined],
    ],
  );
  await state.update(INFLIGHT_STATE_KEY, { not: 'a list' });
  assert.deepEqual(readInflight(state), []);

  await state.update(INFLIGHT_STATE_KEY, undefined);
  await putInflight(state, rec({ label: 'a' }));
  await putInflight(state, rec({ label: 'b' }));
  await putInflight(state, rec({ label: 'a', instanceId: 10, ssh: { user: 'u' } })); // the id arrived: replaces the label's record
  assert.deepEqual(
    readInflight(state).map((r) => [r.label, r.instanceId]),
    [
      ['b', undefined],
      ['a', 10],
    ],
  );
  assert.deepEqual(state.get(SSH_OPTIONS_STATE_KEY), { '10': { user: 'u' } }, 'with an id, its SSH options are kept');
  await putInflight(state, rec({ label: 'c', instanceId: 10 })); // same id, relabelled
  assert.deepEqual(
    readInflight(state).map((r) => [r.label, r.instanceId]),
    [
      ['b', undefined],
      ['c', 10],
    ],
  );
  await putInflight(state, rec({ label: 'b', instanceId: 11 }));
  await putInflight(state, rec({ label: 'd', instanceId: 12 }));
  assert.deepEqual(
    readInflight(state).map((r) => r.instanceId),
    [10, 11, 12],
  );

  await markLate(state, { label: 'zzz' });
  assert.equal(
    readInflight(state).some((r) => r.late),
    false,
    'an unknown label marks nothing',
  );
  await markLate(state, { instanceId: 11, label: 'c' });
  assert.deepEqual(
    readInflight(state).map((r) => r.late ?? false),
    [false, true, false],
    'by id when both have one, not by label',
  );
  await markLate(state, { label: 'd' });
  assert.deepEqual(
    readInflight(state).map((r) => r.late ?? false),
    [false, true, true],
    'by label when the reference has no id',
  );
  await markSeen(state, 12);
  await markSeen(state, 99);
  assert.deepEqual(
    readInflight(state).map((r) => r.seen ?? false),
    [false, false, true],
  );
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
  assert.deepEqual(
    readInflight(state).map((r) => r.instanceId),
    [10, 11, 12],
  );
  await putInflight(state, rec({ label: 'e', instanceId: 13, ssh: { user: 'v' } }));
  await removeInflight(state, 10);
  assert.deepEqual(
    readInflight(state).map((r) => r.instanceId),
    [11, 12, 13],
  );
  assert.ok((state.get(SSH_OPTIONS_STATE_KEY) as Record<string, unknown>)['10'], 'SSH options kept unless asked');
  await removeInflight(state, 13, true);
  assert.deepEqual(
    readInflight(state).map((r) => r.instanceId),
    [11, 12],
  );
  assert.deepEqual(Object.keys(state.get(SSH_OPTIONS_STATE_KEY) as object).sort(), ['10', '11', '12']);
  // a label names one creation: a record with it goes when another id arrives with it; removing by label leaves other labels
  await putInflight(state, rec({ label: 'twice', instanceId: 20 }));
  await putInflight(state, rec({ label: 'twice', instanceId: 21 }));
  assert.deepEqual(
    readInflight(state)
      .filter((r) => r.label === 'twice')
      .map((r) => r.instanceId),
    [21],
  );
  await removeInflight(state, 21);
  await putInflight(state, rec({ label: 'p' }));
  await putInflight(state, rec({ label: 'q' }));
  await removeInflightLabel(state, 'p');
  assert.deepEqual(
    readInflight(state)
      .filter((r) => r.instanceId === undefined)
      .map((r) => r.label),
    ['q'],
  );
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

test('pollUntilReady: a 429 backs off to at least the show threshold, other failures to the interval; the wait limit counts from the start, whatever the clock reads', async () => {
  const slept429: number[] = [];
  const e429 = new ApiError({ kind: 'rate_limited', status: 429, message: 'x' });
  await pollUntilReady(scriptedShow([e429, { state: 'running', ssh_host: 'h', ssh_port: 22 }]).api, 7, fixedClock(slept429), memoryLog(), {
    targetState: 'running',
    intervalMs: 500,
    maxWaitMs: 1e9,
  });
  assert.deepEqual(slept429, [2000]);
  const slept503: number[] = [];
  const e503 = new ApiError({ kind: 'http', status: 503, message: 'x' });
  await pollUntilReady(scriptedShow([e503, { state: 'running', ssh_host: 'h', ssh_port: 22 }]).api, 7, fixedClock(slept503), memoryLog(), {
    targetState: 'running',
    intervalMs: 500,
    maxWaitMs: 1e9,
  });
  assert.deepEqual(slept503, [1000]);
  let t = 1_000_000;
  const late = scriptedShow([{ state: 'loading' }]);
  const out = await pollUntilReady(late.api, 7, { now: () => t, sleep: async (ms) => void (t += ms) }, memoryLog(), {
    targetState: 'running',
    intervalMs: 10_000,
    maxWaitMs: 30_000,
  });
  assert.equal(out.kind, 'timeout');
  assert.equal(late.calls(), 16, 'reads every 2 s from 0 to 30 s after the start');
});

test('the message for a rental of unknown fate names the instance when its id is known, else its label', async () => {
  const { unknownResult } = await import('../../../src/create/rentOnce');
  const withId = unknownResult('job-1', 2, { instanceId: 77 });
  assert.equal(withId.outcome, 'unknown');
  assert.equal('instanceId' in withId && withId.instanceId, 77);
  assert.match('message' in withId ? withId.message : '', /^Instance 77 \("job-1"\) was sent, but the instance list has not shown it yet/);
  const noId = unknownResult('job-2', 1);
  assert.equal('instanceId' in noId, false);
  assert.match('message' in noId ? noId.message : '', /^The rental labelled "job-2" was sent/);
});

test('in-flight records: a record dropped while a seen mark is still being stored stays dropped (globalState echoes each write back)', async () => {
  const state = new EchoingState();
  await state.update(INFLIGHT_STATE_KEY, [{ instanceId: 7, label: 'late-1', ssh: {}, targetState: 'running', startedAt: 0, late: true }]);
  const seen = markSeen(state, 7); // a poll showed it (not awaited: the poll goes on)
  await new Promise((r) => setTimeout(r, 20)); // writing its SSH entry
  await removeInflight(state, 7); // it settled
  await seen;
  await new Promise((r) => setTimeout(r, 60)); // every write stored and echoed
  assert.deepEqual(readInflight(state), []);
});
