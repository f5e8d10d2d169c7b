// The pipeline (src/api/pipeline.ts) as a caller of the client meets it, through a scripted
// transport: which pacing a client gets ('off', the service's, its own), what a 429 holds back,
// a cancel while waiting for a turn. Waits run on Node's fake timers: a wait ends only when the
// test moves the clock, so nothing here depends on how fast the machine is.
import { test, mock, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { flush } from '../../kit/clock';
import { json, rejection, scripted } from './helpers';
import type { ApiClientOptions } from '../../../src/api/client';
import { SERVICE_PACING_MS, SERVICE_THRESHOLDS_MS } from '../../../src/api/pacing';

/** The margin the pacer keeps above each threshold (pacing.ts). */
const MARGIN = 50;

/** The fake monotonic clock (performance.now) of this file: moved by tick() only. */
let mono = 0;

/**
 * setTimeout, Date and performance.now become fake clocks until the test ends: a wait ends only
 * when tick() moves them. Date can also be set on its own (the computer's clock changed).
 */
function fakeTimers(): void {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.UTC(2026, 0, 1) });
  mono = 1_000;
  mock.method(performance, 'now', () => mono);
}
function tick(ms: number): void {
  mono += ms;
  mock.timers.tick(ms);
}
afterEach(() => {
  mock.timers.reset();
  mock.restoreAll();
});

/** Starts `call` and reports, after every step of the fake clock, whether it has settled. */
function track(call: Promise<unknown>): { settled: () => boolean } {
  let done = false;
  call.then(
    () => (done = true),
    () => (done = true),
  );
  return { settled: () => done };
}

/** A client answering every instance list page with no rows, with `pacing` (a key of ApiClientOptions left out when undefined). */
function lister(pacing: ApiClientOptions['pacing'] | 'default') {
  return scripted(() => json(200, { instances: [] }), pacing === 'default' ? { pacing: undefined } : { pacing });
}

test('pacing: by default and with "service" the list waits its threshold between two walks; "off" never waits', async () => {
  fakeTimers();
  for (const pacing of ['default', 'service'] as const) {
    const { api, seen } = lister(pacing);
    await api.listInstances();
    const second = track(api.listInstances());
    await flush();
    assert.equal(seen.length, 1, `${pacing}: the second walk waits for its turn`);
    tick(SERVICE_PACING_MS.list + MARGIN - 1);
    await flush();
    assert.equal(seen.length, 1, `${pacing}: one millisecond short of its turn`);
    tick(1);
    await flush();
    assert.ok(second.settled(), `${pacing}: sent once the interval has passed`);
    assert.equal(seen.length, 2);
  }
  const off = lister('off');
  for (let i = 0; i < 3; i++) await off.api.listInstances();
  assert.equal(off.seen.length, 3, '"off": three walks in a row, the clock never moved');
});

test('pacing: a client\'s own interval for one endpoint, the service\'s for the others', async () => {
  fakeTimers();
  const { api, seen } = scripted(() => json(200, { instances: [] }), { pacing: { list: 5000 } });
  await api.listInstances();
  const second = track(api.listInstances());
  await flush();
  tick(SERVICE_PACING_MS.list + MARGIN + 100);
  await flush();
  assert.equal(seen.length, 1, 'the service\'s interval is not the one asked for');
  tick(5000 + MARGIN - (SERVICE_PACING_MS.list + MARGIN + 100));
  await flush();
  assert.ok(second.settled());
  // show keeps the service's interval
  const shows = scripted(() => json(200, { instances: { id: 5, actual_status: 'running' } }), { pacing: { list: 5000 } });
  await shows.api.showInstance(5);
  const next = track(shows.api.showInstance(5));
  await flush();
  assert.equal(shows.seen.length, 1, 'show is still paced');
  tick(SERVICE_PACING_MS.show + MARGIN);
  await flush();
  assert.ok(next.settled());
});

test('pacing follows a monotonic clock: the computer\'s clock set back an hour does not hold the list back an hour', async () => {
  fakeTimers();
  const { api, seen } = lister('service');
  await api.listInstances();
  mock.timers.setTime(Date.now() - 3_600_000);
  const second = track(api.listInstances());
  await flush();
  tick(SERVICE_PACING_MS.list + MARGIN);
  await flush();
  assert.ok(second.settled(), 'waited the interval, not the hour the clock went back');
  assert.equal(seen.length, 2);
});

/** A scripted client answering its requests with these statuses in turn (then 200), with `over`. */
function answering(statuses: number[], over: Partial<ApiClientOptions>) {
  const left = [...statuses];
  return scripted(() => {
    const status = left.shift() ?? 200;
    return json(status, status === 200 ? { success: true } : { error: 'e', msg: `HTTP ${status}` });
  }, over);
}

test('after a 429 the endpoint waits its whole threshold; another error holds nothing back; with pacing "off" nothing waits', async () => {
  fakeTimers();
  const { api, seen } = answering([429, 200, 500, 200], { pacing: 'service' });
  assert.equal((await rejection(api.setInstanceLabel(5, 'a'))).kind, 'rate_limited');
  const held = track(api.setInstanceLabel(5, 'b'));
  await flush();
  assert.equal(seen.length, 1, 'the call after a 429 waits');
  tick(SERVICE_THRESHOLDS_MS.update + MARGIN);
  await flush();
  assert.ok(held.settled());
  assert.equal(seen.length, 2);
  assert.equal((await rejection(api.setInstanceLabel(5, 'c'))).status, 500);
  await api.setInstanceLabel(5, 'd');
  assert.equal(seen.length, 4, 'an HTTP 500 is no reason to wait: sent without the clock moving');
  // pacing off (a simulator without limits): a 429 holds nothing back either
  const free = answering([429], { pacing: 'off' });
  await rejection(free.api.setInstanceLabel(5, 'a'));
  await free.api.setInstanceLabel(5, 'b');
  assert.equal(free.seen.length, 2);
});
