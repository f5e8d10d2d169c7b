// Stopped machines that still bill, outbid instances and contracts ending soon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contractEndMessage, contractsEndingSoon, newlyOutbid, reminderDue, staleMark, staleStopped, WEEK_MS } from '../../../src/billing/stoppedStorage';
import type { Instance } from '../../../src/api/types';

const now = 1_800_000_000;
const inst = (o: Partial<Instance>): Instance =>
  ({
    id: 1,
    state: 'stopped',
    intended_status: 'stopped',
    is_bid: false,
    start_date: now - 5 * 86400,
    storage_cost: 0.01,
    instance: { totalHour: 0.01 },
    ...o,
  }) as Instance;

test('stopped longer than the setting: flagged with storage so far and per month', () => {
  const rows = [inst({ id: 1 }), inst({ id: 2, start_date: now - 86400 }), inst({ id: 3, state: 'running' }), inst({ id: 4, storage_total_cost: 1.2 })];
  const s = staleStopped(rows, 3, now, (id) => (id === 1 ? 0.5 : undefined));
  assert.deepEqual(
    s.map((x) => x.inst.id),
    [1, 4],
  );
  assert.equal(s[0]!.storageSoFar, 0.5, 'from the charges');
  assert.equal(s[1]!.storageSoFar, 1.2, "the service's own figure first");
  assert.equal(staleMark(s[1]!).text, 'storage $7.30/month, $1.20 so far');
  assert.match(staleMark(s[1]!).tooltip, /created 5 days ago: its disk still bills/);
  assert.deepEqual(staleStopped(rows, 0, now), [], '0 turns it off');
});

test('an outbid instance is not a stale stopped one; it is told about once', () => {
  const outbid = inst({ id: 7, is_bid: true, intended_status: 'running' });
  assert.deepEqual(staleStopped([outbid], 3, now), []);
  assert.deepEqual(
    newlyOutbid([outbid], new Set()).map((i) => i.id),
    [7],
  );
  assert.deepEqual(newlyOutbid([outbid], new Set([7])), []);
});

test('contracts ending within 48 h, once, with the date', () => {
  const rows = [inst({ id: 1, end_date: now + 47 * 3600 }), inst({ id: 2, end_date: now + 49 * 3600 }), inst({ id: 3, end_date: now - 10 })];
  assert.deepEqual(
    contractsEndingSoon(rows, now, new Set()).map((i) => i.id),
    [1],
  );
  assert.deepEqual(contractsEndingSoon(rows, now, new Set([1])), []);
  assert.equal(
    contractEndMessage('train', now + 47 * 3600, now),
    "The host's contract for train ends 2027-01-17 07:00 UTC (in about 47 h). The machine is then taken back: save your work and data before then.",
  );
});

test('the reminder is weekly: not again after a day or six, again after seven days', () => {
  const day = 24 * 3600 * 1000; // written out here, not taken from the module under test
  const shown = Date.parse('2026-11-02T10:00:00Z');
  assert.equal(reminderDue(undefined, shown), true, 'never shown: due');
  assert.equal(reminderDue(shown, shown + day), false, 'a day later: not due');
  assert.equal(reminderDue(shown, shown + 6 * day + 23 * 3600 * 1000), false, 'six days and 23 hours later: not due');
  assert.equal(reminderDue(shown, shown + 7 * day), true, 'a week later: due');
  assert.equal(WEEK_MS, 7 * day);
});
