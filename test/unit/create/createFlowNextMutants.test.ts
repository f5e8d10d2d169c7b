// More of the create flow's behaviour tests for the `create` mutation group (BENCHMARKS.md), beside
// createFlowMutants.test.ts: a host without an instance store, and the next match the failed
// boot's question offers. Against the simulator, as the other flow tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorFromResponse } from '../../../src/api/errors';
import type { Offer } from '../../../src/api/types';
import { runCreateFlow, type FailedBootInfo } from '../../../src/create/createFlow';
import { flowSim, harness, template, useFlowSim } from './flowHarness';

useFlowSim();

test('a host without an instance store rents and settles all the same; a script counts the time from the start', async () => {
  const h = harness();
  h.ports = { ...h.ports, instances: undefined };
  const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.ok(
    h.progress.every((p) => Number.isFinite(p.elapsedMs) && p.elapsedMs >= 0),
    JSON.stringify(h.progress.map((p) => p.elapsedMs)),
  );
});

test("a failed boot's question offers the next match on a machine not yet tried (or of no known machine: never the one rented)", async () => {
  for (const noMachine of [false, true]) {
    await flowSim.control.reset();
    const asked: FailedBootInfo[] = [];
    const offers: Offer[] = [];
    const h = harness({
      prompts: { failedBoot: async (q) => (asked.push(q), 'keep') },
      wrap: (api) => ({
        ...api,
        searchOffers: async (q, o) => {
          const found = await api.searchOffers(q, o);
          offers.push(...found.map((x, i) => (noMachine ? { ...x, machine_id: null } : i === 1 ? { ...x, machine_id: found[0]!.machine_id } : x)));
          return offers;
        },
        createInstance: async (offerId, req, o) => {
          const res = await api.createInstance(offerId, req, o);
          await flowSim.control.fault({ kind: 'instance_state', id: res.new_contract, state: 'exited' });
          return res;
        },
      }),
    });
    const res = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: true });
    assert.equal(res.outcome, 'failed', JSON.stringify(res));
    assert.equal(
      asked[0]?.next?.id,
      offers[noMachine ? 1 : 2]!.id,
      noMachine ? 'the offer after the one rented' : 'not the second offer: it is on the machine that failed',
    );
  }
});

test('a bid is the price paid: after a refusal, a next offer with a higher on-demand price needs no second yes', async () => {
  const bidTemplate = { ...template, offer: { ...template.offer, type: 'bid' as const, bidPrice: 0.3 } };
  let creates = 0;
  const h = harness({
    wrap: (api) => ({
      ...api,
      searchOffers: async (q, o) => (await api.searchOffers(q, o)).map((x, i) => ({ ...x, dph_total: 0.5 + i / 10 })),
      createInstance: async (offerId, req, o) => {
        if (++creates === 1)
          throw errorFromResponse('PUT', `/api/v0/asks/${offerId}/`, 404, JSON.stringify({ success: false, error: 'no_such_ask', msg: 'x' }));
        return api.createInstance(offerId, req, o);
      },
    }),
  });
  const res = await runCreateFlow(h.ports, { template: bidTemplate, templatePath: '.gpu/t.json', confirm: true });
  assert.equal(res.outcome, 'running', JSON.stringify(res));
  assert.equal(creates, 2);
  assert.equal(h.confirms.length, 1);
});
