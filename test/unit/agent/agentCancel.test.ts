// A cancelled call (VS Code's CancellationToken, as the ports' signal) stops the tool's wait, never
// a rent half-way: before the create request nothing is rented; after it the create flow goes on
// exactly as after a click (in-flight record, the machine watched until it runs, its SSH entry
// written, the record dropped), and the answer says the machine is still being created and where to
// watch it. Also a log's wait for its upload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invokeTool } from '../../../src/agent/toolCatalogue';
import { readInflight } from '../../../src/create/createFlow';
import { flowSim, puts, simInstances, useFlowSim } from '../create/flowHarness';
import { WIRE_FAULTS } from '../../kit/wireFaults';
import { waitFor } from '../../kit/wait';
import type { SimFault } from '../../../src/sim/control';
import { agentHarness, quoteIdOf, type AgentHarness } from './agentHarness';

useFlowSim();

const RENT = { image: 'pytorch/pytorch:latest' };

async function quoted(h: AgentHarness): Promise<string> {
  const q = await invokeTool(h.ports, 'rent', RENT);
  assert.equal(q.isError, undefined, q.text);
  return quoteIdOf(q.text);
}

/** Resolves with the log line that says the rent going on in the background ended. */
function rentEnded(h: AgentHarness): Promise<string> {
  return new Promise((resolve) => {
    const info = h.ports.log.info.bind(h.ports.log);
    h.ports.log = { ...h.ports.log, info: (m: string) => (info(m), /^agent: the rent .*ended: /.test(m) ? resolve(m) : undefined) };
  });
}

test('cancelled after the create request: the answer stops waiting, the flow goes on to running (tracked, SSH entry, record dropped), one machine', async () => {
  const h = agentHarness();
  const quote = await quoted(h);
  const cancel = new AbortController();
  // The moment the flow puts the rented machine in the store (its create answered, its record written), the chat is cancelled.
  h.ports.instances = { upsert: () => cancel.abort(), watch: () => undefined, remove: () => undefined };
  const ended = rentEnded(h);
  const r = await invokeTool({ ...h.ports, signal: cancel.signal }, 'rent', { ...RENT, quote_id: quote });
  const id = Number(/^The wait was cancelled, not the rent: instance (\d+) is rented at \$[\d.]+\/h or less and is still being created/.exec(r.text)?.[1]);
  assert.ok(id > 0, r.text);
  assert.equal(r.isError, undefined, 'not an error: the rent was done');
  assert.match(r.text, /list_instances and the Instances view, and its SSH entry is written when it runs\. Do not rent again/);
  assert.deepEqual(
    readInflight(h.state).map((c) => c.instanceId),
    [id],
    'tracked in flight as after a click while the answer is given',
  );
  assert.match(await ended, new RegExp(`the rent of instance ${id} ended: running`));
  assert.deepEqual(h.sshWrites, [id], 'its SSH entry is written when it runs');
  assert.deepEqual(readInflight(h.state), [], 'the record is dropped once it runs');
  assert.equal(await puts(), 1);
  assert.deepEqual(
    (await simInstances()).map((i) => i.id),
    [id],
  );
});

test('cancelled as the create request goes out, under the faults that leave its fate unclear: the flow goes on, and every machine is running with its SSH entry or tracked in flight', async () => {
  for (const kind of ['reset', 'truncated', 'refused', 'slow'] as const) {
    await flowSim.control.reset();
    await flowSim.control.fault({ ...WIRE_FAULTS[kind]('/api/v0/asks/'), count: 1 } as SimFault);
    const cancel = new AbortController();
    const h = agentHarness({
      timeoutMs: 300,
      wrap: (api) => ({
        ...api,
        createInstance: (offer, req, o) => {
          cancel.abort();
          return api.createInstance(offer, req, o);
        },
      }),
    });
    h.ports.maxWaitMs = 20 * 60_000;
    const quote = await quoted(h);
    const ended = rentEnded(h);
    const r = await invokeTool({ ...h.ports, signal: cancel.signal }, 'rent', { ...RENT, quote_id: quote });
    assert.match(r.text, /^The wait was cancelled, not the rent: the rent request was sent .* Do not rent again/, `${kind}: ${r.text}`);
    await ended;
    // A slow answer is logged by the simulator once it is sent, which can be after the flow ended: wait for it.
    await waitFor(async () => (await puts()) === 1, 5000, `${kind}: the create request in the simulator's log`);
    const ids = (await (await fetch(`${flowSim.sim.url}/_sim/state`)).json()) as { instances: Array<{ id: number }> };
    assert.ok(ids.instances.length <= 1, `${kind}: ${ids.instances.length} machines for one quote`);
    for (const { id } of ids.instances) {
      const tracked = readInflight(h.state).some((c) => c.instanceId === id || c.late === true);
      assert.ok(h.sshWrites.includes(id) || tracked, `${kind}: instance ${id} is neither running with its SSH entry nor tracked`);
    }
    assert.equal(await puts(), 1, `${kind}: one create request`);
  }
});

test('cancelled while the flow still searches (before any create request): nothing is rented, and the answer says so', async () => {
  const cancel = new AbortController();
  let armed = false;
  const h = agentHarness({
    wrap: (api) => ({
      ...api,
      searchOffers: (q, o) => {
        if (armed) cancel.abort();
        return api.searchOffers(q, o);
      },
    }),
  });
  const quote = await quoted(h);
  armed = true;
  const r = await invokeTool({ ...h.ports, signal: cancel.signal }, 'rent', { ...RENT, quote_id: quote });
  assert.match(r.text, /^Cancelled\. Nothing was rented\.$/);
  assert.equal(await puts(), 0);
  assert.deepEqual(readInflight(h.state), []);
});

test('cancelled before the confirm runs: nothing is sent', async () => {
  const h = agentHarness();
  const quote = await quoted(h);
  const r = await invokeTool({ ...h.ports, signal: AbortSignal.abort() }, 'rent', { ...RENT, quote_id: quote });
  assert.equal(r.isError, true);
  assert.match(r.text, /cancelled before anything was sent\. Nothing was rented/);
  assert.equal(await puts(), 0);
});

test("instance_logs: a cancelled call stops waiting for the log's upload and says it was cancelled", async () => {
  const h0 = agentHarness();
  const rented = await invokeTool(h0.ports, 'rent', { ...RENT, quote_id: await quoted(h0) });
  const id = Number(/Rented instance (\d+)/.exec(rented.text)?.[1]);
  assert.ok(id > 0, rented.text);
  const cancel = new AbortController();
  const h = agentHarness({
    wrap: (api) => ({
      ...api,
      fetchLogs: (url, o) => {
        cancel.abort();
        return api.fetchLogs(url, o);
      },
    }),
  });
  const r = await invokeTool({ ...h.ports, signal: cancel.signal }, 'instance_logs', { instance_id: id });
  assert.equal(r.isError, true);
  assert.equal(r.text, 'instance_logs was cancelled; nothing was changed.');
});
