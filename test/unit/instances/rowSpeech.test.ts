// What a screen reader says for a row (issue 35, audit A1): everything the row shows or cuts,
// in words, from the same instance the row is drawn from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Instance, Offer } from '../../../src/api/types';
import { instanceRowSpeech } from '../../../src/instances/rowSpeech';
import { offerRowSpeech } from '../../../src/offers/offerRow';
import { spokenRate, rowSpeech } from '../../../src/core/spokenRow';
import { instanceRow } from '../../../src/instances/instanceViewModel';

const make = (p: Partial<Instance>): Instance => ({ id: 42, state: 'running', actual_status: 'running', intended_status: 'running', ...p });

test('an instance row says its full name, its state (a running row shows none), its price per hour, GPUs, guard and marks', () => {
  const i = make({ label: 'a-very-long-training-run-7f3a', num_gpus: 2, gpu_name: 'RTX 4090', dph_total: 0.8 });
  assert.notEqual(instanceRow(i).label, i.label, 'the row label is shortened');
  assert.equal(
    instanceRowSpeech(i, { guard: { text: 'idle 12 min', details: [] }, marks: ['price +25 % pending'] }),
    'a-very-long-training-run-7f3a, running, $0.80 per hour, 2× RTX 4090, idle guard: idle 12 min, warning: price +25 % pending',
  );
  assert.equal(instanceRowSpeech(make({ state: 'stopped', storage_cost: 0.04, dph_total: 1 })), '#42, stopped, $0.04 per hour');
  assert.equal(instanceRowSpeech(make({ label: 'x' }), { pending: 'Stopping…' }), 'x, Stopping…, $0.00 per hour');
});

test('every instance row names the whole label and the price, whatever the label', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim() !== ''),
      fc.double({ min: 0.01, max: 100, noNaN: true }),
      (label, dph) => {
        const said = instanceRowSpeech(make({ label, dph_total: dph }));
        assert.ok(said.startsWith(label.trim() || '#42'), said);
        assert.ok(said.includes(spokenRate(dph)), said);
      },
    ),
  );
});

test('an offer row says GPUs, price, GPU RAM, reliability, place, verified and its id', () => {
  const o = { id: 77, num_gpus: 1, gpu_name: 'A100', dph_total: 1.25, gpu_ram: 80000, reliability: 0.991, geolocation: 'Norway', verified: true } as Offer;
  assert.equal(offerRowSpeech(o), '1× A100, $1.25 per hour, 80 GB GPU RAM, reliability 99.1%, Norway, verified, offer 77');
  assert.equal(offerRowSpeech({ id: 5, dph_total: 0.2 } as Offer), 'Offer, $0.20 per hour, not verified, offer 5');
});

test('other rows: label and description, then what activating them does; empty parts are left out', () => {
  assert.equal(
    rowSpeech('Error: Could not refresh instances', 'timed out', 'activate to retry'),
    'Error: Could not refresh instances, timed out, activate to retry',
  );
  assert.equal(rowSpeech('Spending', undefined), 'Spending');
  assert.equal(rowSpeech('Backup codes', ' '), 'Backup codes');
});
