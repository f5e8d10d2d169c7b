// state.json as VS Code reads it: version 1 objects (guards already running on instances) still
// parse; version 2 (positional, what the watchdog writes now) and 3 (what onstart writes when the
// watchdog could not be unpacked) map to the same fields, with the new ones named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readWatchdogState } from '../../../src/guard/watchdogState';

const V1 = {
  version: 1,
  pid: 12,
  startedAt: 1000,
  updatedAt: 1600,
  action: 'stop',
  idleLimitSeconds: 1800,
  gpu: 'ok',
  gpuUtil: 3,
  sshSessions: 0,
  heartbeatAgeSeconds: null,
  snoozedUntil: null,
  busyReason: null,
  idleSince: 1500,
  actAt: 3300,
  capAt: null,
  capReason: 'cap',
  failures: 0,
  nextRetryAt: null,
  lastError: null,
  doneAt: null,
  tickSeconds: 60,
};

test('a version 1 state (an older guard) parses as before', () => {
  assert.deepEqual(readWatchdogState(V1), V1);
});

test('version 2: positions named, "" is none, the times VS Code shows computed from what the guard knows', () => {
  const s = readWatchdogState([
    2,
    12,
    1000,
    1600,
    'destroy',
    1800,
    'hanging',
    null,
    2,
    1,
    30,
    null,
    'no GPU reading (nvidia-smi hanging)',
    null,
    7200,
    'maxHours',
    2,
    1700,
    'destroy failed (HTTP 0)',
    'curl, awk',
    null,
    60,
  ])!;
  assert.equal(s.action, 'destroy');
  assert.equal(s.gpu, 'hanging');
  assert.equal(s.gpuProblem, 'cannot see the GPU (nvidia-smi hanging)');
  assert.equal(s.sshSessions, 2);
  assert.equal(s.jupyterConnections, 1);
  assert.equal(s.heartbeatAgeSeconds, 30);
  assert.equal(s.busyReason, 'no GPU reading (nvidia-smi hanging)');
  assert.equal(s.actAt, null);
  assert.equal(s.capAt, 8200);
  assert.equal(s.capReason, 'maxHours');
  assert.equal(s.nextRetryAt, 1700);
  assert.equal(s.lastError, 'destroy failed (HTTP 0)');
  assert.equal(s.cannotAct, 'cannot act: no curl, awk');
  assert.equal(s.tickSeconds, 60);
  const idle = readWatchdogState([2, 12, 1000, 1600, 'stop', 1800, 'ok', 0, 0, 0, null, null, '', 1500, 0, 'cap', 0, 0, '', '', null, 60])!;
  assert.deepEqual(
    [idle.busyReason, idle.actAt, idle.capAt, idle.nextRetryAt, idle.lastError, idle.cannotAct, idle.gpuProblem],
    [null, 3300, null, null, null, null, null],
  );
});

test('version 3: the guard could not be unpacked, and says so', () => {
  const s = readWatchdogState([3, 1600, 'stop'])!;
  assert.equal(s.updatedAt, 1600);
  assert.match(String(s.cannotAct), /^cannot act: no base64 or gzip/);
});

test('other shapes are not a state', () => {
  for (const bad of [[2, 1, 2], [4, 1, 'stop'], { version: 1 }, 'x', null, [2, ...Array(21).fill('x')]])
    assert.equal(readWatchdogState(bad), undefined, JSON.stringify(bad));
});
