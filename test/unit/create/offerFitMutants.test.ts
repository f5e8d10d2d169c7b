// Every filter of a template's offer block at its edge, each written to fail if one small change
// were planted in src/create/offerFit.ts (the `create` mutation group, BENCHMARKS.md): what fits
// exactly at a bound, what an unknown field means, the defaults of verified and rentable, and the
// reason a user reads. Plain calls, no server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Offer } from '../../../src/api/types';
import { offerSatisfies } from '../../../src/create/offerFit';
import type { Template } from '../../../src/create/templateSchema';

const tpl = (offer: Template['offer']): Template => ({ name: 't', instance: { image: 'i' }, ...(offer ? { offer } : {}) });
const base: Offer = { id: 1, num_gpus: 1, gpu_name: 'RTX 4090', dph_total: 0.5, verified: true, rentable: true } as Offer;
const fit = (offer: Template['offer'], over: Partial<Offer> = {}) => offerSatisfies(tpl(offer), { ...base, ...over });

test('no offer block, or an empty one: only a verified, rentable offer is asked for', () => {
  assert.deepEqual(offerSatisfies(tpl(undefined), { ...base, num_gpus: 8, dph_total: 99 }), []);
  assert.equal(offerSatisfies(tpl(undefined), { ...base, verified: false, rentable: false }).length, 2);
  assert.deepEqual(fit({}), []);
});

test("a bid template: the offer's minimum bid above the bid price is refused; at it, unknown, or on demand it fits", () => {
  assert.deepEqual(fit({ type: 'bid', bidPrice: 0.3 }, { min_bid: 0.4 }), ['minimum bid $0.40/h is above bidPrice $0.30/h']);
  assert.deepEqual(fit({ type: 'bid', bidPrice: 0.3 }, { min_bid: 0.3 }), []);
  assert.deepEqual(fit({ type: 'bid', bidPrice: 0.3 }, { min_bid: null }), []);
  assert.deepEqual(fit({ type: 'bid' }, { min_bid: 0.4 }), []);
  assert.deepEqual(fit({ type: 'on-demand', bidPrice: 0.3 }, { min_bid: 0.4 }), []);
});

test('GPU names: any case and spacing; an empty list asks nothing', () => {
  assert.deepEqual(fit({ gpuNames: [' rtx 4090 ', 'A100'] }, { gpu_name: 'RTX 4090 ' }), []);
  assert.deepEqual(fit({ gpuNames: ['A100', 'H100'] }), ['GPU RTX 4090 is not in gpuNames (A100, H100)']);
  assert.deepEqual(fit({ gpuNames: [] }), []);
});

test('GPU count: exact and minimum, with one GPU or several in the reason', () => {
  assert.deepEqual(fit({ numGpus: 1 }), []);
  assert.deepEqual(fit({ numGpus: 2 }), ['1 GPU instead of numGpus 2']);
  assert.deepEqual(fit({ numGpus: 1 }, { num_gpus: 4 }), ['4 GPUs instead of numGpus 1']);
  assert.deepEqual(fit({ minNumGpus: 2 }, { num_gpus: 2 }), []);
  assert.deepEqual(fit({ minNumGpus: 2 }), ['1 GPU, fewer than minNumGpus 2']);
});

test('GPU memory: at the bound fits, a megabyte under it does not, unknown is refused', () => {
  assert.deepEqual(fit({ minGpuRamGb: 24 }, { gpu_ram: 24_000 }), []);
  assert.deepEqual(fit({ minGpuRamGb: 24 }, { gpu_ram: 23_999 }), ['24.0 GB per GPU is below minGpuRamGb 24']);
  assert.deepEqual(fit({ minGpuRamGb: 24 }, { gpu_ram: 0 }), ['0 GB per GPU is below minGpuRamGb 24']);
  assert.deepEqual(fit({ minGpuRamGb: 24 }), ['GPU memory is not known (minGpuRamGb 24)']);
});

test('reliability: at the bound fits, under it does not, unknown is refused', () => {
  assert.deepEqual(fit({ minReliability: 0.95 }, { reliability: 0.95 }), []);
  assert.deepEqual(fit({ minReliability: 0.95 }, { reliability: 0.9449 }), ['reliability 94.5% is below minReliability 95%']);
  assert.deepEqual(fit({ minReliability: 0.955 }), ['reliability is not known (minReliability 95.5%)']);
});

test('verified and rentable: required unless the template turns them off; unknown is not held against the offer', () => {
  assert.deepEqual(fit({}, { verified: false }), ['the host is not verified (the template accepts verified hosts only)']);
  assert.deepEqual(fit({}, { rentable: false }), ['the offer is not rentable right now']);
  assert.deepEqual(fit({ verified: false, rentable: false }, { verified: false, rentable: false }), []);
  assert.deepEqual(fit({}, { verified: undefined, rentable: undefined }), []);
});

test('direct ports: at the bound fits, under it does not (one or several), unknown is refused', () => {
  assert.deepEqual(fit({ minDirectPorts: 2 }, { direct_port_count: 2 }), []);
  assert.deepEqual(fit({ minDirectPorts: 2 }, { direct_port_count: 1 }), ['1 direct port, below minDirectPorts 2']);
  assert.deepEqual(fit({ minDirectPorts: 5 }, { direct_port_count: 0 }), ['0 direct ports, below minDirectPorts 5']);
  assert.deepEqual(fit({ minDirectPorts: 2 }), ['the number of direct ports is not known (minDirectPorts 2)']);
});

test('every failed filter is named, in the order of the block', () => {
  const r = fit({ maxDphTotal: 0.1, gpuNames: ['A100'], minNumGpus: 2, minDirectPorts: 1 }, { verified: false });
  assert.deepEqual(
    r.map((x) => x.split(' ')[0]),
    ['price', 'GPU', '1', 'the', 'the'],
  );
});

test('a price cap of exactly the price fits; the reason shows the two prices apart at up to 6 decimals', () => {
  assert.deepEqual(fit({ maxDphTotal: 0.5 }), []);
  assert.deepEqual(fit({ maxDphTotal: 0.5 }, { dph_total: 0.51 }), ['price $0.51/h is above maxDphTotal $0.50/h']);
  assert.deepEqual(fit({ maxDphTotal: 0.5 }, { dph_total: 0.5000001 }), ['price $0.500000/h is above maxDphTotal $0.500000/h']);
  assert.deepEqual(fit({ maxDphTotal: 0.5 }, { dph_total: 0.50001 }), ['price $0.50001/h is above maxDphTotal $0.50000/h']);
});
