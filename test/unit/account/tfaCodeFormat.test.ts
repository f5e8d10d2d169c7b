// The 6-digit check on a typed verification code, at the flow: a code of the wrong shape is
// answered at once ("Enter the 6-digit code") and asked for again, and never reaches the
// service (a refused code there would spend one of the few attempts before a lock-out).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { totp } from '../../../src/sim/totp';
import { useTfaHarness } from './tfaHelpers';

const t = useTfaHarness();

test('a typed code that is not 6 digits is refused before sending and asked for again; the real one then signs in', async () => {
  let secret = '';
  const setup = t.h.run({
    label: 'Phone',
    code: [async () => (await t.h.ctl.lastCode('email')).code, async (s) => ((secret = s!), totp(s!, await t.h.ctl.now()))],
  });
  assert.ok((await setup.flows.addTotp()).ok);
  const id = (await t.h.api.tfaStatus()).methods[0]!.id;
  await t.h.advance(31); // the next TOTP step: the enabling code cannot be reused

  const before = (await t.h.ctl.requests()).length;
  const r = t.h.run({ verify: id, code: ['12345', '1234567', '12a456', async () => totp(secret, await t.h.ctl.now())] });
  const res = await r.flows.signIn();
  assert.ok(res.ok, JSON.stringify(r.errors));
  assert.deepEqual(r.errors, [], 'no error from the service: the malformed codes were never sent');
  assert.equal(r.infos.filter((m) => /6-digit code/.test(m)).length, 3, r.infos.join('\n'));
  const sent = (await t.h.ctl.requests()).slice(before).filter((q) => q.method !== 'GET' && q.path.startsWith('/api/v0/tfa'));
  assert.equal(sent.length, 1, `only the well-formed code is sent: ${JSON.stringify(sent)}`);
  assert.equal((await t.h.api.tfaStatus()).methods[0]!.fail_count ?? 0, 0, 'no failed attempt spent');
});
