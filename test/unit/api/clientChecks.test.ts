// The client's own checks against the real simulator over loopback, in both eras: requests
// refused before sending, the backoff's jitter and cap, and cancellation at every stage. (Split
// from client.test.ts: these are the quick tests that catch planted bugs in the pipeline, so the
// mutation run's api group needs no more than them; see tools/mutate/stryker.config.mjs.)
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, rejection, type Harness } from './helpers';
import { waitFor } from '../../kit/wait';

for (const era of ['today', 'seed'] as const)
  describe(`era ${era}`, () => {
    let h: Harness;
    useHarness({ instances: 2, era }, (x) => (h = x), { resetEach: true });

    test('backoff uses full jitter capped by maxDelayMs', async () => {
      const delays: number[] = [];
      const log = {
        ...h.log,
        info: (m: string) => {
          const d = /in (\d+) ms/.exec(m);
          if (d) delays.push(Number(d[1]));
        },
      };
      const api = h.client({ log, random: () => 0.999, retry: { retries: 4, baseDelayMs: 2, maxDelayMs: 10 } });
      await h.ctl.fault({ kind: 'http_error', status: 503, path: '/api/v0/tfa/status', count: 4 });
      await api.tfaStatus();
      assert.deepEqual(delays, [1, 3, 7, 9]);
    });

    test('AbortSignal: cancels a request in flight, a backoff wait, and refuses an already aborted signal', async () => {
      // Each step waits for the event it cancels (the request held by the simulator, the first 503
      // logged) and checks what came after by the simulator's own log, never by the clock: a busy
      // machine only makes it slower.
      const api = h.client({ random: () => 0.999, retry: { retries: 4, baseDelayMs: 5000, maxDelayMs: 5000 } });
      const logged = async (part: string) => (await h.ctl.requests()).filter((r) => r.path.includes(part));
      // In flight: the simulator holds the answer for 30 s (a reset drops it); abort once it holds it.
      await h.ctl.fault({ kind: 'slow', ms: 30_000, path: '/users/current' });
      let ctl = new AbortController();
      let p = rejection(api.currentUser({ signal: ctl.signal }));
      await waitFor(() => !h.sim.state.faults.some((f) => f.kind === 'slow'), 10_000, 'the simulator holding the answer');
      ctl.abort();
      let e = await p;
      assert.equal(e.kind, 'aborted');
      assert.deepEqual(await logged('/users/current'), [], 'cancelled before the held answer came');

      // A backoff wait: the first 503 is logged, the client waits ~5 s to try again; abort then.
      await h.ctl.fault({ kind: 'http_error', status: 503, path: '/tfa/status', count: 3 });
      ctl = new AbortController();
      p = rejection(api.tfaStatus({ signal: ctl.signal }));
      await waitFor(async () => (await logged('/tfa/status')).length === 1, 10_000, 'the first 503');
      ctl.abort();
      e = await p;
      assert.equal(e.kind, 'aborted');
      assert.equal((await logged('/tfa/status')).length, 1, 'the 5 s backoff wait was cut short: no second attempt');

      // Already aborted: nothing is sent (counted on the list's own path, which no step above used).
      e = await rejection(api.listInstances({ signal: AbortSignal.abort() }));
      assert.equal(e.kind, 'aborted');
      assert.deepEqual(await logged('/instances'), []);
    });

    test('2FA requests are validated before sending', async () => {
      const api = h.client();
      const before = (await h.ctl.requests()).length;
      const cases: Array<[Promise<unknown>, RegExp]> = [
        [api.tfaLogin({ tfa_method: 'totp', code: '12345' }), /code/],
        [api.tfaLogin({ backup_code: 'abc' }), /backup_code/],
        [api.tfaSendSms({ phone_number: '555-1234' }), /phone_number/],
        [api.tfaConfirmNew({ tfa_method: 'totp', code: '123456', secret: 'S', label: 'x'.repeat(31) }), /label/],
        [api.tfaUpdate({ tfa_method_id: 1, label: 'y'.repeat(40) }), /label/],
        [api.tfaAuthorizeNewMethodConfirm({ code: 'abcdef', secret: 's' }), /code/],
        [api.tfaRemove({ backup_code: 'ABCD-EFGH-JKLM' }), /target_id/],
        [api.tfaRegenBackupCodes({ tfa_method: 'sms', code: '1' }), /code/],
      ];
      for (const [p, field] of cases) {
        const e = await rejection(p);
        assert.equal(e.kind, 'invalid_request');
        assert.match(e.problems!.join(), field);
      }
      assert.equal((await h.ctl.requests()).length, before);
    });
  });
