// Creation against the live service (the simulator's today era): a machine that cannot be
// scheduled leaves the instance stopped, which the flow reports at once with its storage cost
// (never waits on it); the offer search asks for the template's disk so the quoted price is paid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OfferQuery } from '../../../src/api/types';
import { runCreateFlow } from '../../../src/create/createFlow';
import { ApiError } from '../../../src/api/errors';
import { stoppedCreationMessage } from '../../../src/create/stoppedCreation';
import { flowSim, harness, template, useFlowSim } from './flowHarness';

useFlowSim();

test('a creation the service leaves stopped (cancel_unavail false, machine unschedulable) is reported stopped with its storage cost, not waited on', async () => {
  const queries: OfferQuery[] = [];
  const h = harness({ wrap: (api) => ({ ...api, searchOffers: (q, o) => (queries.push(q), api.searchOffers(q, o)) }) });
  for (const o of flowSim.sim.state.offers) flowSim.sim.state.unschedulable.add(o.id);
  const t = { ...template, instance: { ...template.instance, cancel_unavail: false } };
  const r = await runCreateFlow(h.ports, { template: t, templatePath: '.gpu/t.json' });
  assert.equal(r.outcome, 'stopped', JSON.stringify(r));
  if (r.outcome !== 'stopped') return;
  assert.equal(r.attempts, 1, 'one rental: nothing else was rented');
  assert.ok(h.clock.slept.length <= 1, `not waited on: slept ${JSON.stringify(h.clock.slept)}`);
  assert.equal(r.instance.state, 'stopped');
  const msg = stoppedCreationMessage(r.instance, t.name, 'running');
  assert.match(msg, /service left it stopped/);
  assert.match(msg, /disk bills \$0\.\d+\/h|disk bills <\$0\.01\/h/);
  assert.match(stoppedCreationMessage(r.instance, t.name, 'stopped'), /as the template asks/);
  // the search asked for the template's disk, so the quoted price includes it
  assert.equal(queries[0]!.allocatedStorage, template.instance.disk);
});

test('with cancel_unavail (the on-demand default) an unschedulable machine is 410 no_such_ask: the next offer is rented', async () => {
  const h = harness();
  const offers = await h.api.searchOffers({
    gpuNames: ['RTX 4090', 'RTX 3090'],
    maxDphTotal: 5,
    order: [['dph_total', 'asc']],
    allocatedStorage: template.instance.disk ?? 8,
  });
  flowSim.sim.state.unschedulable.add(offers[0]!.id);
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', offer: offers[0]!.id, confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r && { ...r, instance: undefined }));
  if (r.outcome !== 'running') return;
  assert.equal(r.attempts, 2);
  assert.notEqual(flowSim.sim.state.instances.get(r.instance.id)!.offer.id, offers[0]!.id);
});

test('creation errors by their code: own machine (403) and no_such_ask (404/410) try the next offer; invalid_price and no_ssh_key_for_vm say what to do', async () => {
  const h = harness();
  const offers = await h.api.searchOffers({
    gpuNames: ['RTX 4090', 'RTX 3090'],
    maxDphTotal: 5,
    order: [['dph_total', 'asc']],
    allocatedStorage: template.instance.disk ?? 8,
  });
  await flowSim.control.fault({ kind: 'offer_own', offerId: offers[0]!.id });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', offer: offers[0]!.id, confirm: false });
  assert.equal(r.outcome, 'running', JSON.stringify(r && { ...r, instance: undefined }));
  if (r.outcome === 'running') assert.notEqual(flowSim.sim.state.instances.get(r.instance.id)!.offer.id, offers[0]!.id);
  const own = await rejection(h.api.createInstance(offers[0]!.id, { image: 'ubuntu:22.04' }));
  assert.deepEqual([own.status, own.code], [403, 'own_machine']);
  assert.match(own.userMessage(), /your own machines/);
  const low = await rejection(h.api.createInstance(offers[offers.length - 1]!.id, { image: 'ubuntu:22.04', price: 0.0001 }, { interruptible: true }));
  assert.equal(low.code, 'invalid_price');
  assert.match(low.userMessage(), /Raise the bid/);
  const vm = await rejection(h.api.createInstance(offers[offers.length - 2]!.id, { image: 'ubuntu:22.04', vm: true }));
  assert.equal(vm.code, 'no_ssh_key_for_vm');
  assert.match(vm.userMessage(), /SSH key/);
});

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}
