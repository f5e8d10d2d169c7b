import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardDefaultsFrom } from '../../../src/guard/settingsScope';
import { DEFAULT_GUARD } from '../../../src/guard/installed';

test('guard settings: a workspace may make the guard stricter, never turn it off or loosen it', () => {
  assert.deepEqual(guardDefaultsFrom(undefined, undefined, undefined), DEFAULT_GUARD);
  // A repository's .vscode/settings.json trying to turn it off, or to stretch it to a week: ignored.
  assert.deepEqual(guardDefaultsFrom({ workspaceValue: false }, { workspaceValue: 10080 }, { workspaceFolderValue: 1 }), {
    enabled: true,
    idleMinutes: 30,
    gpuUtilBelow: 5,
  });
  // Stricter: shorter idle time, a higher threshold (more counts as idle); the strictest scope wins.
  assert.deepEqual(guardDefaultsFrom({ workspaceValue: true }, { workspaceValue: 20, workspaceFolderValue: 10 }, { workspaceValue: 15 }), {
    enabled: true,
    idleMinutes: 10,
    gpuUtilBelow: 15,
  });
  // The user's own settings may do anything, including off and a week.
  assert.deepEqual(guardDefaultsFrom({ globalValue: false }, { globalValue: 10080 }, { globalValue: 1 }), {
    enabled: false,
    idleMinutes: 10080,
    gpuUtilBelow: 1,
  });
  // ...and a workspace may turn it back on or tighten the user's values, not loosen them.
  assert.deepEqual(
    guardDefaultsFrom({ globalValue: false, workspaceValue: true }, { globalValue: 60, workspaceValue: 120 }, { globalValue: 10, workspaceValue: 3 }),
    { enabled: true, idleMinutes: 60, gpuUtilBelow: 10 },
  );
  // Hand-edited nonsense falls back.
  assert.deepEqual(guardDefaultsFrom({ globalValue: 'no' }, { globalValue: 0, workspaceValue: 2.5 }, { globalValue: 500 }), DEFAULT_GUARD);
});

test('New Template has a commented guard block that is valid once uncommented; the Rent confirmation says what the guard does', async () => {
  const { exampleTemplate } = await import('../../../src/create/templateExample');
  const { loadTemplate } = await import('../../../src/create/templateValidation');
  const { guardSummary, resolveGuardPlan } = await import('../../../src/guard/plan');
  const text = exampleTemplate('t');
  assert.match(text, /\/\/ "guard": \{/);
  const on = text.replace(/^ {2}\/\/ ("guard": \{|  "|\},)/gm, (_m, rest: string) => `  ${rest}`);
  const ctx = { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined };
  const r = await loadTemplate(on, ctx);
  assert.deepEqual(r.problems, [], on);
  assert.deepEqual(r.template!.guard, { idleMinutes: 30, gpuUtilBelow: 5, keepWhileSsh: true, action: 'stop', maxHours: 12, maxSpend: 10 });
  const plan = resolveGuardPlan({ idleMinutes: 30, maxHours: 6, maxSpend: 10 })!;
  assert.equal(
    guardSummary({ plan, explicit: true, apiUrl: 'https://x' }, 2),
    'Idle guard: stops it after 30 idle minutes (GPUs below 5 %, no SSH session), even with VS Code closed; caps 6 h / $10 (at the latest after 5.0 h).',
  );
  assert.match(guardSummary(undefined, 1), /none/);
});
