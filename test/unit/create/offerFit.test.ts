// The price cap of a template is checked on the offer's exact price, never on a rounded one: an
// offer a fraction of a cent above maxDphTotal is refused, and the reason shows the two prices apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Offer } from '../../../src/api/types';
import { offerSatisfies } from '../../../src/create/offerFit';
import type { Template } from '../../../src/create/templateSchema';

const capped = (maxDphTotal: number): Template => ({ name: 'cap', instance: { image: 'i' }, offer: { maxDphTotal } });
const offer = (dph_total: number): Offer => ({ id: 1, num_gpus: 1, gpu_name: 'RTX 4090', dph_total, verified: true, rentable: true }) as Offer;

test('offer fit: cap $0.50/h refuses an offer at $0.504/h (above the cap by less than half a cent), and says so with the prices apart', () => {
  const reasons = offerSatisfies(capped(0.5), offer(0.504));
  assert.equal(reasons.length, 1, 'an offer above the cap is refused, however little above');
  assert.match(reasons[0]!, /price \$0\.504\/h is above maxDphTotal \$0\.500\/h/);
  assert.deepEqual(offerSatisfies(capped(0.5), offer(0.5)), [], 'exactly at the cap fits');
  assert.deepEqual(offerSatisfies(capped(0.5), offer(0.496)), [], 'below the cap fits');
});

test('offer fit: any price above the cap is refused and any price at or below it fits (property)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: -5000, max: 5000 }), (capMicro, deltaMicro) => {
      const cap = capMicro / 1e6;
      const price = Math.max(0, capMicro + deltaMicro) / 1e6;
      const refused = offerSatisfies(capped(cap), offer(price)).some((r) => r.includes('maxDphTotal'));
      assert.equal(refused, price > cap, `cap ${cap}, price ${price}`);
      if (refused)
        assert.doesNotMatch(offerSatisfies(capped(cap), offer(price)).join(), /price (\$[\d.]+\/h) is above maxDphTotal \1/, 'the two prices read apart');
    }),
    { seed: 33, numRuns: 300 },
  );
});
