import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { InstanceLogStore, logKeyOf, logPath, parseLogPath, renderLog, LOGS_SCHEME } from '../../../src/logs/logStore';
import { type LogKey } from '../../../src/core/storePorts';
import { startSim } from '../../kit/sim';
import { closeApiTransport, createApiClient } from '../../../src/api/client';
import { keyCredentials } from '../api/helpers';
import { captureLogger } from '../../kit/log';

test('a log document address round-trips its key; other documents are not logs', () => {
  const key: LogKey = { instanceId: 42, daemon: true, tail: 200, filter: 'error|Traceback' };
  const { path, query } = logPath(key, 'my job/#1');
  assert.equal(path, '/42/my-job-1-daemon.log');
  assert.deepEqual(parseLogPath(path, query), key);
  assert.deepEqual(logKeyOf({ scheme: LOGS_SCHEME, path, query }), key);
  assert.equal(logKeyOf({ scheme: 'file', path, query }), undefined);
  const captured: LogKey = { instanceId: 7, daemon: false, tail: 1000, resultUrl: 'https://bucket.example/l.log?sig=x' };
  const p2 = logPath(captured, '');
  assert.deepEqual(parseLogPath(p2.path, p2.query), captured);
});

test('the header says which log, when it was fetched, and whether it is followed; errors keep the last text', () => {
  const at = new Date('2026-11-24T07:00:00Z');
  const e = {
    key: { instanceId: 5, daemon: false, tail: 100, filter: 'oom' },
    name: 'train',
    text: 'line 1\n',
    fetchedAt: at,
    following: true,
    loading: false,
  };
  assert.equal(
    renderLog(e, 10),
    '# train (#5) · container log · last 100 lines · lines matching "oom" · fetched 2026-11-24 07:00:00 UTC · following every 10 s\nline 1\n',
  );
  const failed = renderLog({ ...e, following: false, error: 'HTTP 503' }, 10);
  assert.match(failed, /^# train .*\n# Could not fetch the log: HTTP 503\n# Use Refresh .*\n\nline 1\n$/);
  assert.match(
    renderLog({ ...e, text: undefined, fetchedAt: undefined, loading: true, following: false }, 10),
    /fetching…\n# Waiting for the service to upload the log/,
  );
});

let closeSim: (() => Promise<void>) | undefined;
after(async () => {
  await closeSim?.();
  await closeApiTransport();
});

test('the store fetches through the client (one request at a time per log), records errors, follows', async () => {
  const sim = await startSim({ testControl: true, seed: 1, instances: 1, logDelayMs: 100 });
  closeSim = () => sim.close();
  const api = createApiClient({ baseUrl: sim.url, credentials: keyCredentials(), log: captureLogger(), timeoutMs: 5000 });
  const store = new InstanceLogStore({
    api: async () => api,
    describeError: (e) => (e instanceof Error ? e.message : String(e)),
    fetchOptions: { intervalMs: 20, attempts: 100 },
  });
  const id = [...sim.state.instances.keys()][0]!;
  const key: LogKey = { instanceId: id, daemon: false, tail: 3 };
  const changes: LogKey[] = [];
  store.onDidChange((k) => changes.push(k));
  const [a, b] = await Promise.all([store.refresh(key, 'seeded'), store.refresh(key, 'seeded')]);
  assert.equal(a, b);
  assert.equal(a.text?.trimEnd().split('\n').length, 3);
  assert.ok(a.fetchedAt);
  assert.equal(sim.state.requests.filter((r) => r.path.includes('request_logs')).length, 1, 'one request for two refreshes in flight');
  assert.ok(changes.length >= 2, 'loading and loaded both notify');
  store.setFollowing(key, true);
  assert.deepEqual(store.following(), [key]);
  const missing = await store.refresh({ instanceId: 999_999, daemon: false, tail: 3 });
  assert.match(missing.error ?? '', /999999|not exist|invalid_id/);
  store.close(key);
  assert.equal(store.get(key), undefined);
  assert.deepEqual(store.following(), []);
});
