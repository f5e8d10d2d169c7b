import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { currentBid, parseBid } from '../../../src/instances/bid';
import { isOutbid } from '../../../src/core/instanceWords';
import type { Instance } from '../../../src/api/types';

const inst = (over: Partial<Instance>): Instance => ({ id: 1, actual_status: 'running', state: 'running', ...over });

test('bid validation: dollars per hour, above zero, at least the minimum bid', () => {
  assert.deepEqual(parseBid('0.35', 0.3), { ok: true, price: 0.35 });
  assert.deepEqual(parseBid(' $0.5/h ', 0.3), { ok: true, price: 0.5 });
  assert.deepEqual(parseBid('.4', undefined), { ok: true, price: 0.4 });
  assert.deepEqual(parseBid('0.30', 0.3), { ok: true, price: 0.3 }, 'the minimum itself is a valid bid');
  for (const [text, re] of [
    ['', /Enter a price/],
    ['abc', /'abc' is not a price/],
    ['-1', /not a price/],
    ['1e3', /not a price/],
    ['0', /more than \$0/],
    ['5000', /at most \$1000/],
    ['0.2', /minimum bid for this machine is now \$0.3\/h/],
  ] as const) {
    const r = parseBid(text, 0.3);
    assert.equal(r.ok, false, text);
    assert.match((r as { message: string }).message, re, text);
  }
});

test('outbid: an interruptible instance stopped while intended running; current bid is its compute price', () => {
  const outbid = inst({ is_bid: true, intended_status: 'running', actual_status: 'stopped', state: 'stopped', dph_base: 0.21 });
  assert.equal(isOutbid(outbid), true);
  assert.equal(currentBid(outbid), 0.21);
  assert.equal(isOutbid({ ...outbid, intended_status: 'stopped' }), false, 'a user stop is not an outbid');
  assert.equal(isOutbid({ ...outbid, is_bid: false }), false, 'on-demand instances are never outbid');
  assert.equal(isOutbid({ ...outbid, state: 'running', actual_status: 'running' }), false);
  assert.equal(currentBid(inst({ is_bid: false, dph_base: 0.5 })), undefined);
});

test('rows: an outbid instance says so and offers Change Bid…; an interruptible one carries .bid', async () => {
  const { instanceRow, instanceContextValue } = await import('../../../src/instances/instanceViewModel');
  const { stateText } = await import('../../../src/core/instanceWords');
  const outbid = inst({ is_bid: true, intended_status: 'running', actual_status: 'stopped', state: 'stopped', dph_base: 0.21, min_bid: 0.3 });
  assert.equal(stateText(outbid), 'outbid');
  assert.equal(instanceContextValue(outbid), 'instance.stopped.bid.outbid');
  const row = instanceRow(outbid);
  assert.match(row.description, /outbid/);
  assert.match(
    row.tooltip,
    /Outbid: the service stopped this interruptible instance because someone bid more than \$0\\\.210\/h\. The minimum bid is now \$0\\\.300\/h\. Storage keeps billing\. Use Change Bid/,
  );
  assert.equal(instanceContextValue(inst({ is_bid: true, intended_status: 'running' })), 'instance.running.bid');
  assert.equal(instanceContextValue(inst({ is_bid: false })), 'instance.running');
  assert.equal(
    stateText(inst({ is_bid: true, intended_status: 'stopped', state: 'stopped', actual_status: 'exited' })),
    'stopped',
    'a user stop is just stopped',
  );
});
