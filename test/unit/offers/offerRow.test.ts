import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Offer } from '../../../src/api/types';
import { offerRow } from '../../../src/offers/offerRow';

test('offer row: GPUs, $/h, GPU RAM in GB, reliability, location, verified, dlperf per $', () => {
  const o: Offer = {
    id: 7,
    num_gpus: 1,
    gpu_name: 'RTX 4090',
    dph_total: 0.4,
    gpu_ram: 24564,
    reliability: 0.98,
    geolocation: 'US',
    verified: true,
    dlperf_per_dphtotal: 123.45,
  };
  const r = offerRow(o);
  assert.equal(r.label, '1× RTX 4090');
  assert.equal(r.description, '$0.40/h · 24.6 GB · 98.0% · US · verified · 123.5 dlperf/$');
  assert.equal(r.contextValue, 'offer');
  assert.equal(r.id, 'offer:7');
});
