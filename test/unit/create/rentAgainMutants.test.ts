// The rule for renting again (src/api/rentAgain.ts) on its own, for the `create` mutation group
// (BENCHMARKS.md): only an API error of a kind that carries the service's answer, with a status of
// 400 or more, can prove that nothing was created.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { provenRefusal } from '../../../src/api/rentAgain';
import { ApiError } from '../../../src/api/errors';
import type { ApiErrorKind } from '../../../src/api/types';

const err = (kind: ApiErrorKind, status: number | undefined, code?: string) =>
  new ApiError({ kind, message: 'x', ...(status !== undefined ? { status } : {}), ...(code ? { code } : {}) });

test('what is not an API error proves nothing (and does not throw)', () => {
  for (const e of [null, undefined, 'no_such_ask', 404, new Error('no_such_ask'), { kind: 'http', status: 404, code: 'no_such_ask' }])
    assert.equal(provenRefusal(e), undefined, String(e));
});

test('an answer of a kind that carries no service answer proves nothing, whatever its status and code', () => {
  for (const kind of ['network', 'timeout', 'aborted', 'malformed', 'ambiguous', 'too_large', 'not_visible_yet'] as const)
    assert.equal(provenRefusal(err(kind, 404, 'no_such_ask')), undefined, kind);
});

test('each kind that carries the answer proves its row; a 2xx or 3xx never does', () => {
  assert.equal(provenRefusal(err('http', 404, 'no_such_ask'))?.then, 'next-offer');
  assert.equal(provenRefusal(err('rate_limited', 429))?.then, 'wait-and-resend');
  assert.equal(provenRefusal(err('auth', 401))?.then, 'stop');
  assert.equal(provenRefusal(err('http', undefined, 'no_such_ask')), undefined);
  for (const status of [200, 302, 399]) assert.equal(provenRefusal(err('http', status, 'no_such_ask')), undefined, String(status));
});
