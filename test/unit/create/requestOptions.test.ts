// What the create flow hands each request besides its body: the user's cancel (a request that
// hangs is aborted at once, whatever it was: a status read, a list read, the create itself) and
// the template's secrets (masked if the service echoes them back).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { CallOptions, ServiceApi } from '../../../src/api/types';
import { pollUntilReady, readInflight, runCreateFlow } from '../../../src/create/createFlow';
import { flush } from '../../kit/clock';
import { captureLogger } from '../../kit/log';
import { flowSim, harness, puts, simInstances, template, useFlowSim } from './flowHarness';

useFlowSim();

/**
 * A request that gets no answer until its signal aborts, then fails as the client's aborted
 * request does. One sent without a signal is refused at once: nothing could ever end it.
 */
function hangingRequests() {
  const signals: Array<AbortSignal | undefined> = [];
  const send = (o?: CallOptions) =>
    new Promise<never>((_resolve, reject) => {
      const signal = o?.signal;
      signals.push(signal);
      if (!signal) return reject(new Error('sent without a signal: a cancel could not abort it'));
      const abort = () => reject(new ApiError({ kind: 'aborted', message: 'the request was aborted' }));
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    });
  return { signals, send };
}

const noWait = () => {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
};

test('pollUntilReady: a cancel while a status read or a list read hangs aborts that request, and the wait ends "aborted"', async () => {
  // the status read hangs
  const show = hangingRequests();
  const ac = new AbortController();
  const api = { showInstance: (_id: number, o?: CallOptions) => show.send(o) } as unknown as ServiceApi;
  const polling = pollUntilReady(api, 7, noWait(), captureLogger(), { targetState: 'running', intervalMs: 10_000, maxWaitMs: 1e9, signal: ac.signal });
  await flush();
  assert.equal(show.signals.length, 1, 'one status read, still waiting for its answer');
  ac.abort();
  assert.equal(show.signals[0]?.aborted, true, 'the cancel reached the hanging status read');
  assert.deepEqual(await polling, { kind: 'aborted' });

  // after the minute show says "not found", and the list read by id hangs
  const list = hangingRequests();
  const ac2 = new AbortController();
  const notFound = new ApiError({ kind: 'http', status: 404, code: 'no_such_instance', message: 'no such instance' });
  const api2 = {
    showInstance: async () => Promise.reject(notFound),
    findInstances: (_f: unknown, o?: CallOptions) => list.send(o),
  } as unknown as ServiceApi;
  const log = captureLogger();
  const polling2 = pollUntilReady(api2, 7, noWait(), log, {
    targetState: 'running',
    label: 'hangs-x1',
    intervalMs: 60_000,
    maxWaitMs: 1e9,
    signal: ac2.signal,
  });
  await flush();
  assert.equal(list.signals.length, 1, 'the list read after the minute, still waiting for its answer');
  ac2.abort();
  assert.equal(list.signals[0]?.aborted, true, 'the cancel reached the hanging list read');
  assert.deepEqual(await polling2, { kind: 'aborted' });
  assert.deepEqual(log.lines, [
    'debug create: instance 7 is not visible yet; asking again',
    'debug create: the instance list could not be read (aborted); instance 7 stays tracked',
  ]);
});

test('a cancel while the create request hangs aborts it; the machine it made is found through the list and the user decides, never a second rental', async () => {
  const create = hangingRequests();
  const ac = new AbortController();
  const rented: number[] = [];
  const asked: Array<[number, string]> = [];
  const h = harness({
    prompts: { keepOrDestroy: async (id, reason) => (asked.push([id, reason]), 'keep') },
    wrap: (api) => ({
      ...api,
      // The service makes the machine, but its answer does not come; the user clicks Cancel meanwhile.
      createInstance: async (offerId, req, o) => {
        rented.push((await api.createInstance(offerId, req)).new_contract);
        const answer = create.send(o);
        ac.abort();
        return answer;
      },
    }),
  });
  const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, signal: ac.signal });
  assert.equal(create.signals[0]?.aborted, true, 'the create request was aborted');
  // an aborted create is ambiguous: the list, asked even though the user cancelled, shows what it made
  assert.deepEqual(asked, [[rented[0], 'cancelled']]);
  assert.ok(r.outcome === 'cancelled' && r.keptId === rented[0], JSON.stringify(r));
  assert.deepEqual(
    (await simInstances()).map((i) => i.id),
    rented,
  );
  assert.equal(await puts(), 1);
  assert.deepEqual(
    readInflight(h.state).map((x) => x.instanceId),
    rented,
    'kept: still tracked',
  );
  const label = readInflight(h.state)[0]!.label;
  const offer = flowSim.sim.state.instances.get(rented[0]!)!.offer.id;
  assert.ok(
    h.log.lines.includes(`warn create: outcome of renting offer ${offer} is unknown (aborted); checking the instance list for "${label}"`),
    h.log.lines.join('\n'),
  );
  assert.ok(h.log.lines.includes(`info create: the instance list shows instance ${rented[0]} labelled "${label}": the create had gone through`));
});

test('a template secret the service echoes back in a create error reaches neither the message nor the log', async () => {
  const secret = 'correct-horse-battery-7731';
  await flowSim.control.fault({
    kind: 'http_error',
    status: 400,
    error: 'invalid_args',
    msg: `environment value ${secret} is not accepted`,
    path: '/api/v0/asks/',
    count: 1,
  });
  const h = harness();
  const t = { ...template, instance: { ...template.instance, env: { ...template.instance.env, HF_TOKEN: secret } } };
  const r = await runCreateFlow(h.ports, { template: t, templatePath: '.gpu/t.json', confirm: false, secrets: [secret] });
  assert.equal(r.outcome, 'failed');
  const message = r.outcome === 'failed' ? r.message : '';
  assert.ok(/environment value \*\*\* is not accepted/.test(message), 'the echo is shown, masked'); // (assert.ok: a failure must not print the message)
  assert.ok(!message.includes(secret), 'secret in the message');
  assert.ok(
    h.log.lines.some((l) => l.startsWith('warn create: renting offer') && l.includes('environment value *** is not accepted')),
    'the echo is logged, masked',
  );
  assert.ok(!h.log.lines.join('\n').includes(secret), 'secret in the log');
  assert.deepEqual(await simInstances(), []);
});
