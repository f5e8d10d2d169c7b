// Every number setting has a floor and a ceiling (package.json and the reader agree), an interval
// can no longer overflow a timer into a loop, and a workspace only tightens the money reminders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, manifest } from '../repoRoot';
import { MAX_TIMER_MS, SETTING_BOUNDS, clampSetting, effectiveSetting, tightenOnly, type BoundedSetting } from '../../../src/core/settingBounds';
import { DEFAULT_POLLER_CONFIG, Poller } from '../../../src/core/poller';
import { FakeTimers, flush } from '../../kit/clock';

interface Prop {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
}
const props = (manifest() as { contributes: { configuration: { properties: Record<string, Prop> } } }).contributes.configuration.properties;
const numeric = Object.entries(props).filter(([, p]) => p.type === 'number' || p.type === 'integer');

test('every number setting in package.json has a minimum and a maximum', () => {
  assert.ok(numeric.length >= 8, 'the number settings are found');
  for (const [k, p] of numeric) {
    assert.equal(typeof p.minimum, 'number', `${k} has no minimum`);
    assert.equal(typeof p.maximum, 'number', `${k} has no maximum`);
  }
});

test("package.json states the bounds and defaults the reader clamps to (the guard's are read by src/guard/settingsScope.ts)", () => {
  const read = numeric
    .map(([k]) => k.replace(/^gpuRental\./, ''))
    .filter((k) => !k.startsWith('guard.'))
    .sort();
  assert.deepEqual(read, Object.keys(SETTING_BOUNDS).sort(), 'every number setting outside the guard is bounded by the reader');
  for (const [key, b] of Object.entries(SETTING_BOUNDS)) {
    const p = props[`gpuRental.${key}`]!;
    assert.deepEqual([p.default, p.minimum, p.maximum], [b.default, b.min, b.max], key);
  }
});

test('every interval ceiling, in milliseconds, is a delay a timer keeps', () => {
  for (const key of ['pollIntervalSeconds', 'hiddenPollIntervalSeconds', 'logs.followIntervalSeconds'] as const) {
    assert.ok(clampSetting(key, 1e9) * 1000 <= MAX_TIMER_MS, key);
    assert.ok(clampSetting(key, Number.MAX_VALUE) * 1000 <= MAX_TIMER_MS, key);
  }
});

test('clampSetting: out of range to the nearest bound, not a number to the default', () => {
  assert.equal(clampSetting('pollIntervalSeconds', 1e9), 3600);
  assert.equal(clampSetting('pollIntervalSeconds', 1), 5);
  assert.equal(clampSetting('pollIntervalSeconds', -20), 5);
  assert.equal(clampSetting('pollIntervalSeconds', 30), 30);
  assert.equal(clampSetting('pollIntervalSeconds', '15'), 15);
  for (const bad of [NaN, Infinity, 'often', '', null, undefined, {}, true]) assert.equal(clampSetting('pollIntervalSeconds', bad), 10, String(bad));
  assert.equal(clampSetting('logs.tail', 10.7), 10, 'whole numbers where the setting is an integer');
  assert.equal(clampSetting('createMaxAttempts', 50), 10);
  assert.equal(clampSetting('stoppedStorageDays', 1e12), 365);
  assert.equal(clampSetting('lowCreditWarningHours', -1), 0);
});

test('effectiveSetting: the folder value, else the workspace, else the user, else the default, clamped', () => {
  assert.equal(effectiveSetting('pollIntervalSeconds', { defaultValue: 10 }), 10);
  assert.equal(effectiveSetting('pollIntervalSeconds', { defaultValue: 10, globalValue: 20, workspaceValue: 1e9 }), 3600);
  assert.equal(effectiveSetting('pollIntervalSeconds', { defaultValue: 10, globalValue: 20, workspaceValue: 30, workspaceFolderValue: 40 }), 40);
  assert.equal(effectiveSetting('pollIntervalSeconds', undefined), 10);
});

test('an interval of 1e9 s polls the list once an hour, not in a 1 ms loop', async () => {
  const timers = new FakeTimers();
  const delays: number[] = [];
  const rec = {
    now: () => timers.now(),
    clearTimeout: (h: unknown) => timers.clearTimeout(h),
    setTimeout: (fn: () => void, ms: number) => (delays.push(ms), timers.setTimeout(fn, ms)),
  };
  let fetches = 0;
  const seconds = (key: BoundedSetting) => effectiveSetting(key, { defaultValue: SETTING_BOUNDS[key].default, globalValue: 1e9 });
  const poller = new Poller<number>({
    fetch: async () => ++fetches,
    onResult: () => undefined,
    onError: () => undefined,
    isSignedIn: () => true,
    generation: () => 0,
    isTransitional: () => false,
    config: () => ({
      ...DEFAULT_POLLER_CONFIG,
      intervalMs: seconds('pollIntervalSeconds') * 1000,
      hiddenIntervalMs: seconds('hiddenPollIntervalSeconds') * 1000,
    }),
    timers: rec,
  });
  poller.start();
  await flush();
  poller.setVisible(true);
  await timers.advance(3 * 3600 * 1000);
  poller.dispose();
  assert.ok(delays.length > 0 && delays.every((ms) => ms > 0 && ms <= MAX_TIMER_MS), `every delay a timer keeps: ${delays.join(', ')}`);
  assert.ok(fetches >= 3 && fetches <= 5, `about one fetch an hour over three hours: ${fetches}`);
});

test('money reminders: a workspace may warn earlier, never later, and never turn them off', () => {
  const low = (i: object) => tightenOnly('lowCreditWarningHours', { defaultValue: 12, ...i }, 'larger');
  assert.equal(low({}), 12);
  assert.equal(low({ workspaceValue: 0 }), 12, 'a workspace cannot turn the low-credit warning off');
  assert.equal(low({ workspaceValue: 1 }), 12, 'nor make it warn later');
  assert.equal(low({ workspaceFolderValue: 0.5 }), 12);
  assert.equal(low({ workspaceValue: 48 }), 48, 'it may make it warn earlier');
  assert.equal(low({ globalValue: 0, workspaceValue: 24 }), 24, 'or turn it on');
  assert.equal(low({ globalValue: 0 }), 0, 'the user may turn it off');
  assert.equal(low({ globalValue: 1e9 }), 720);
  assert.equal(low({ workspaceValue: 'never' }), 12);

  const stale = (i: object) => tightenOnly('stoppedStorageDays', { defaultValue: 3, ...i }, 'smaller');
  assert.equal(stale({}), 3);
  assert.equal(stale({ workspaceValue: 0 }), 3, 'a workspace cannot turn the stopped-storage reminder off');
  assert.equal(stale({ workspaceValue: 365 }), 3, 'nor flag later');
  assert.equal(stale({ workspaceFolderValue: 1e9 }), 3);
  assert.equal(stale({ workspaceValue: 1 }), 1, 'it may flag sooner');
  assert.equal(stale({ globalValue: 0, workspaceFolderValue: 2 }), 2, 'or turn it on');
  assert.equal(stale({ globalValue: 0 }), 0, 'the user may turn it off');
});

test('the settings reader bounds every number and reads the money reminders through tightenOnly, never get()', () => {
  const src = readFileSync(join(repoRoot(), 'src', 'core', 'vscode', 'settings.ts'), 'utf8');
  assert.doesNotMatch(src, /\.get<number>/, 'a number read with get() escapes the bounds');
  for (const key of ['lowCreditWarningHours', 'stoppedStorageDays']) assert.match(src, new RegExp(`tightenOnly\\('${key}', c\\.inspect\\('${key}'\\)`), key);
  // The user-only money numbers (the budget, the agents' per-hour cap): bounded, from the user's value only.
  const userOnlyNumbers = ['budget.monthly', 'agent.maxPricePerHour'];
  for (const key of userOnlyNumbers)
    assert.match(src, new RegExp(`clampSetting\\('${key.replace('.', '\\.')}', userOnly\\(c\\.inspect<number>\\('${key.replace('.', '\\.')}'\\)\\)\\)`), key);
  for (const key of Object.keys(SETTING_BOUNDS).filter((k) => !['lowCreditWarningHours', 'stoppedStorageDays', ...userOnlyNumbers].includes(k)))
    assert.match(src, new RegExp(`num\\('${key.replace('.', '\\.')}'\\)`), key);
});
