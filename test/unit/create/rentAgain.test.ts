// The rule for renting again (src/api/rentAgain.ts), read row by row: each refusal the table lists
// does what the table says, and nothing else moves the flow to another rental by itself: the same
// codes in a 2xx answer (the service may have acted) are reconciled through the list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROVEN_REFUSALS, provenRefusal, type ProvenRefusal } from '../../../src/api/rentAgain';
import { ApiError, errorFromResponse } from '../../../src/api/errors';
import { readInflight, runCreateFlow, type CreateFlowResult } from '../../../src/create/createFlow';
import { flowSim, harness, puts, template, useFlowSim, type Harness } from './flowHarness';
import { held } from './lateScenarios';

useFlowSim();

const CREATE = '/api/v0/asks/';
const run = (h: Harness, confirm = false): Promise<CreateFlowResult> => runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm });

/** The error the client makes of this row's answer (a code, or for a code-free row, the body's absence of one). */
function answerOf(r: ProvenRefusal, status: number): ApiError {
  const body = r.code ? { success: false, error: r.code, msg: 'x' } : status === 429 ? { detail: 'API requests too frequent' } : { success: false, msg: 'x' };
  return errorFromResponse('PUT', `${CREATE}1/`, status, JSON.stringify(body));
}

test('the table: every row has a source and a meaning; each row is found for its own answer and for nothing in a 2xx', () => {
  assert.ok(PROVEN_REFUSALS.length >= 8);
  for (const r of PROVEN_REFUSALS) {
    assert.ok(r.source.length > 10 && r.meaning.length > 5, JSON.stringify(r));
    if (r.status === 'not-sent') {
      assert.equal(provenRefusal(new ApiError({ kind: 'invalid_request', message: 'x' })), r);
      continue;
    }
    assert.equal(provenRefusal(answerOf(r, r.status))?.then, r.then, JSON.stringify(r));
    assert.equal(provenRefusal(answerOf(r, 200)), undefined, `a 2xx with ${r.code ?? 'no code'} proves nothing`);
  }
  for (const e of [
    errorFromResponse('PUT', CREATE, 200, '{"success":false,"error":"rate_limit_exceeded","msg":"slow down"}'),
    errorFromResponse('PUT', CREATE, 500, '{"success":false,"error":"server_error","msg":"x"}'),
    errorFromResponse('PUT', CREATE, 404, '<html>not found</html>'),
    errorFromResponse('PUT', CREATE, 400, '{"success":false,"error":"something_new","msg":"x"}'),
    new ApiError({ kind: 'ambiguous', status: 502, message: 'x' }),
    new ApiError({ kind: 'timeout', message: 'x' }),
    new ApiError({ kind: 'network', message: 'x' }),
    new Error('no_such_ask'),
  ])
    assert.equal(provenRefusal(e), undefined, e.message);
});

test('each listed refusal on the create does what the table says: next offer, wait and send again, or stop; one machine at most', async () => {
  for (const r of PROVEN_REFUSALS) {
    if (r.status === 'not-sent') continue;
    await flowSim.control.reset();
    // The first create is refused as the row says (the service did nothing), through the client's own reading of it.
    let refused = 0;
    const status = r.status;
    const h = harness({
      wrap: (api) => ({
        ...api,
        createInstance: async (offerId, req, o) => {
          if (refused++ === 0) throw answerOf(r, status);
          return api.createInstance(offerId, req, o);
        },
      }),
    });
    const res = await run(h);
    const what = `${r.status} ${r.code ?? '(no code)'}: ${JSON.stringify(res)}`;
    if (r.then === 'stop') {
      assert.equal(res.outcome, 'failed', what);
      assert.match(res.outcome === 'failed' ? res.message : '', /nothing was rented/i, what);
      assert.deepEqual(readInflight(h.state), [], `${what}: a proven refusal leaves nothing in flight`);
    } else assert.equal(res.outcome, 'running', what);
    assert.equal(refused, r.then === 'stop' ? 1 : 2, `${what}: create requests`);
    assert.equal(await puts(), r.then === 'stop' ? 0 : 1, what);
    assert.ok((await held()).length <= 1, what);
  }
});

test('a request that never left (the client refused it) is a proven refusal: the flow stops, nothing is in flight', async () => {
  await flowSim.control.reset();
  const h = harness({
    wrap: (api) => ({
      ...api,
      createInstance: async () => {
        throw new ApiError({ kind: 'invalid_request', message: 'createInstance: onstart: too long' });
      },
    }),
  });
  const res = await run(h);
  assert.equal(res.outcome, 'failed', JSON.stringify(res));
  assert.deepEqual(readInflight(h.state), []);
});

// The service acted, and answered with a 2xx that is not a clear success (or a 5xx): the old flow
// sent the request again on 200 rate_limit_exceeded, and rented the next offer on 200 no_such_ask.
const acted = [...new Set(['rate_limit_exceeded', ...PROVEN_REFUSALS.flatMap((r) => (r.code ? [r.code] : []))])]
  .map((code) => ({ status: 200, body: { success: false, error: code, msg: 'x' } }))
  .concat([{ status: 500, body: { success: false, error: 'server_error', msg: 'x' } }]);

test('a create the service carried out but answered 200 {"success":false,"error":<any code of the table, or rate_limit_exceeded>} or 5xx: reconciled through the list, one machine, found', async () => {
  for (const a of acted) {
    await flowSim.control.reset();
    const h = harness({
      wrap: (api) => ({
        ...api,
        createInstance: async (offerId, req, o) => {
          await api.createInstance(offerId, req, o);
          throw errorFromResponse('PUT', `${CREATE}${offerId}/`, a.status, JSON.stringify(a.body));
        },
      }),
    });
    const res = await run(h);
    const what = `${a.status} ${a.body.error}: ${JSON.stringify(res)}`;
    assert.equal(await puts(), 1, `${what}: sent once`);
    assert.equal((await held()).length, 1, what);
    assert.equal(res.outcome, 'running', what);
  }
});

test('a 2xx refusal where the service did nothing: scripted, the flow answers unknown and the rental stays in flight; interactive, the user is asked with the answer and the price', async () => {
  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'http_error', status: 200, error: 'rate_limit_exceeded', path: CREATE, count: 1 });
  const h = harness();
  const res = await run(h);
  assert.equal(res.outcome, 'unknown', JSON.stringify(res));
  assert.match(res.outcome === 'unknown' ? res.message : '', /was answered ".*", which does not prove that nothing was rented/);
  assert.equal(await puts(), 1);
  assert.equal(readInflight(h.state).length, 1, 'still in flight, watched');

  await flowSim.control.reset();
  await flowSim.control.fault({ kind: 'http_error', status: 200, error: 'rate_limit_exceeded', path: CREATE, count: 1 });
  const asked: Array<Record<string, unknown>> = [];
  const h2 = harness({ prompts: { notFound: async (what) => (asked.push({ ...what }), 'rent-again') } });
  const res2 = await run(h2, true);
  assert.equal(asked.length, 1);
  assert.ok(typeof asked[0]!.answer === 'string' && typeof asked[0]!.dphTotal === 'number', JSON.stringify(asked));
  assert.equal(res2.outcome, 'running', 'the user chose to rent another');
  assert.equal(await puts(), 2);
});
