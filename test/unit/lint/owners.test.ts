// One owner per side effect (tools/lint/owners.mjs): each act is an error anywhere in src/ but in
// its owner's file, where the same code passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fixtureLint as eslint, root } from './fixtureLint';

async function owned(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(root, file) });
  assert.deepEqual(
    r?.messages.filter((m) => m.fatal),
    [],
    'the fixture parses',
  );
  return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const CASES: Array<{ what: string; owner: string; others: string[]; code: string; message: RegExp }> = [
  {
    what: 'making an API client',
    owner: 'src/app/apiAccess.ts',
    others: ['src/account/fixture.ts', 'src/app/fixture.ts', 'src/ssh/vscode/commands/fixture.ts'],
    code: "export async function f(k: string) {\n  return (await import('../api/client')).createApiClient({ baseUrl: 'u', credentials: { token: () => k }, log: console });\n}\n",
    message: /API clients are made only by apiClientFactory/,
  },
  {
    what: 'setting the API key on the connection',
    owner: 'src/account/apiKey.ts',
    others: ['src/account/vscode/commands/fixture.ts', 'src/app/fixture.ts'],
    code: 'export function f(conn: { setApiKey(k: string): void }) {\n  conn.setApiKey("k");\n}\n',
    message: /The API key is stored and set on the connection only by its owner/,
  },
  {
    what: 'storing the API key',
    owner: 'src/account/apiKey.ts',
    others: ['src/app/fixture.ts', 'src/account/vscode/fixture.ts'],
    code: "export async function f(secrets: { store(n: string, v: string): Promise<void> }) {\n  await secrets.store('apiKey', 'k');\n}\n",
    message: /The API key is stored and set on the connection only by its owner/,
  },
  {
    what: 'keeping a billing session',
    owner: 'src/billing/vscode/billingSession.ts',
    others: ['src/app/fixture.ts', 'src/billing/vscode/fixture.ts'],
    code: "import type { BillingSession } from './billingSession';\nexport let kept: BillingSession | undefined;\nexport function f(s: { billing?: unknown }, b: BillingSession) {\n  s.billing = b;\n  kept = b;\n}\n",
    message: /The billing session has one owner/,
  },
  {
    what: 'naming a state key outside the table',
    owner: 'src/core/stateKeys.ts',
    others: ['src/billing/fixture.ts', 'src/guard/fixture.ts'],
    code: "export const SOMETHING_KEY = 'gpuRental.something';\n",
    message: /Every globalState\/workspaceState key lives in src\/core\/stateKeys\.ts/,
  },
  {
    what: 'a state key literal at the call',
    owner: 'src/core/stateKeys.ts',
    others: ['src/app/fixture.ts', 'src/offers/fixture.ts'],
    code: "export function f(s: { globalState: { get(k: string): unknown } }, state: { update(k: string, v: unknown): void }) {\n  state.update(`gpuRental.x`, 1);\n  return s.globalState.get('gpuRental.y');\n}\n",
    message: /Every globalState\/workspaceState key lives in src\/core\/stateKeys\.ts/,
  },
];

for (const c of CASES) {
  test(`eslint: ${c.what} fails outside ${c.owner} and passes in it`, async () => {
    for (const file of c.others) {
      const msgs = await owned(file, c.code);
      assert.ok(msgs.length >= 1, `${file}: not reported`);
      for (const m of msgs) assert.match(m, c.message, file);
    }
    assert.deepEqual(await owned(c.owner, c.code), [], c.owner);
  });
}

test('eslint: a state key constant passed by name, and a value literal, are fine anywhere', async () => {
  const code =
    "import { X_KEY } from '../core/stateKeys';\nexport function f(s: { globalState: { update(k: string, v: unknown): void } }) {\n  s.globalState.update(X_KEY, 'gpuRental.value');\n}\n";
  assert.deepEqual(await owned('src/billing/fixture.ts', code), []);
});
