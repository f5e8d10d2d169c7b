import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseOfferQuery } from '../../../src/offers/offerQuery';
import { DEFAULT_OFFER_QUERY, describeOfferQuery } from '../../../src/offers/offerQueryText';

test('defaults follow the CLI: verified, rentable, on-demand, best score first', () => {
  const r = parseOfferQuery({});
  assert.ok(r.ok);
  assert.deepEqual(r.query, { ...DEFAULT_OFFER_QUERY });
  assert.equal(r.query.verified, true);
  assert.deepEqual(r.query.order, [['score', 'desc']]);
});

test('a scripted filters object is validated with the OfferQuery keys', () => {
  const r = parseOfferQuery({ gpuNames: ['RTX 4090'], numGpus: 2, minGpuRamGb: 24, type: 'bid' });
  assert.ok(r.ok);
  assert.equal(r.query.numGpus, 2);
  assert.equal(r.query.rentable, true);
  assert.equal(describeOfferQuery(r.query), 'RTX 4090 · 2 GPUs · ≥24 GB · interruptible');
  const bad = parseOfferQuery({ numGpus: 'two' });
  assert.equal(bad.ok, false);
  assert.match((bad as { message: string }).message, /numGpus/);
  assert.equal(parseOfferQuery({ gpuName: 'x' }).ok, false, 'unknown keys are refused');
});

test("a template's offer block is accepted as is (rank becomes the order, bidPrice is ignored)", () => {
  const r = parseOfferQuery({ gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 1, type: 'bid', bidPrice: 0.25, rank: 'cheapest' });
  assert.ok(r.ok);
  assert.deepEqual(r.query.order, [['dph_total', 'asc']]);
  assert.equal('bidPrice' in r.query, false);
  assert.equal('rank' in r.query, false);
  const best = parseOfferQuery({ rank: 'best-value' });
  assert.ok(best.ok);
  assert.deepEqual(best.query.order, [['dlperf_per_dphtotal', 'desc']]);
  const explicit = parseOfferQuery({ rank: 'best-value', order: [['score', 'desc']] });
  assert.ok(explicit.ok);
  assert.deepEqual(explicit.query.order, [['score', 'desc']], 'an explicit order wins');
});
