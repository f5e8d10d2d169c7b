// Consent for calls by other extensions: an argument that skips a confirmation of spending or
// destroying counts only when the user turned on gpuRental.scripting.allowUnattended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../repoRoot';
import { consentedCreateArgs, skipsConfirmation, unattendedAllowed, type Consent } from '../../../src/core/unattended';

const consent = (allowUnattended: boolean): Consent & { lines: string[] } => {
  const lines: string[] = [];
  return { allowUnattended, log: { info: (m: string) => lines.push(m) }, lines };
};

test('skipConfirmation is honoured only with consent; a refused skip is logged', () => {
  const off = consent(false);
  assert.equal(skipsConfirmation(off, { id: 1, skipConfirmation: true }, 'Destroy'), false);
  assert.match(off.lines.join('\n'), /Destroy: .*allowUnattended is off/);
  assert.equal(skipsConfirmation(consent(true), { id: 1, skipConfirmation: true }, 'Destroy'), true);
  for (const arg of [undefined, 5, { id: 1 }, { skipConfirmation: 'true' }, { skipConfirmation: 1 }])
    assert.equal(skipsConfirmation(consent(true), arg, 'Destroy'), false, JSON.stringify(arg));
  assert.equal(unattendedAllowed(consent(true), 'x'), true);
});

test('a create without consent keeps every question: confirm:false, onNotFound and onCancel are dropped', () => {
  const args = { template: '.gpu/a.json', offerId: 7, confirm: false, onNotFound: 'rent-again' as const, onCancel: 'destroy' as const, pollIntervalMs: 50 };
  assert.deepEqual(consentedCreateArgs(consent(false), args), { template: '.gpu/a.json', offerId: 7, pollIntervalMs: 50 });
  assert.deepEqual(consentedCreateArgs(consent(true), args), args, 'with consent they stand');
  assert.deepEqual(consentedCreateArgs(consent(false), { confirm: true, offerId: 3 }), { confirm: true, offerId: 3 }, 'asking anyway needs no consent');
  assert.deepEqual(args.confirm, false, "the caller's object is not changed");
});

/** Every command handler file of src/ (src/<feature>/vscode/commands/*.ts). */
function handlers(): string[] {
  const src = join(repoRoot(), 'src');
  return readdirSync(src).flatMap((f) => {
    const dir = join(src, f, 'vscode', 'commands');
    try {
      return readdirSync(dir)
        .filter((n) => n.endsWith('.ts'))
        .map((n) => join(dir, n));
    } catch {
      return [];
    }
  });
}

test('no command handler reads an argument that skips a confirmation except through the consent check', () => {
  const files = handlers();
  assert.ok(files.length > 20, 'the handlers are found');
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const name = relative(repoRoot(), f);
    assert.doesNotMatch(text, /\.skipConfirmation\s*===/, `${name} reads skipConfirmation itself: use skipsConfirmation(consentOf(services), …)`);
    if (/\.(onNotFound|onCancel)\b|confirm === false/.test(text))
      assert.match(text, /consentedCreateArgs\(|^\s*\.\.\.\(a\.confirm === false/m, `${name} passes a create's answers on: through consentedCreateArgs`);
    if (/publicKeyPath/.test(text)) assert.match(text, /callerKeyAllowed\(/, `${name} takes a caller's key file without consent`);
    if (/\{ price\?: unknown \}/.test(text))
      assert.match(text, /unattendedAllowed\(consentOf\(services\), 'Change Bid'\)/, `${name} takes a caller's bid without consent`);
  }
});
