// Template files that try to crash the loader: every input yields diagnostics, never an
// exception, and no problem shows a secret value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTemplate, type LoadedTemplate } from '../../../src/templates/validate';
import { parseJsonc } from '../../../src/templates/jsonc';

const SECRET = 'hf_SeCrEt0123456789';
const ctx = {
  env: { CTRL: 'A\u0001B', NL: 'X\nY', PROTO: '__proto__' },
  secret: async (n: string) => (n === 'TOK' ? SECRET : undefined),
  readFile: async () => undefined,
  workspaceFolder: '/ws',
};

async function load(text: string): Promise<LoadedTemplate> {
  const r = await loadTemplate(text, ctx); // must not throw
  assert.ok(!JSON.stringify(r.problems).includes(SECRET), `a secret in the problems: ${JSON.stringify(r.problems)}`);
  return r;
}

const tpl = (instance: Record<string, unknown>, extra: Record<string, unknown> = {}) => JSON.stringify({ name: 't', instance: { image: 'i', ...instance }, ...extra });

test('a control character in an env key (written, or via ${env:…}) is a problem on that key, not an exception', async () => {
  for (const key of ['A\u0001B', 'TAB\tKEY', '${env:CTRL}', '${env:NL}', 'ok\u007f']) {
    const r = await load(tpl({ env: { [key]: '1' } }));
    assert.equal(r.template, undefined, key);
    const p = r.problems.find((x) => x.path[0] === 'instance' && x.path[1] === 'env');
    assert.ok(p, `${JSON.stringify(key)}: ${JSON.stringify(r.problems)}`);
    assert.equal(p.path[2], key, 'the path shows the key as written');
    assert.doesNotMatch(p.where, /[\u0000-\u001f\u007f]/, 'no raw control character in the shown path');
  }
});

test('nesting 100,000 deep is a syntax problem (too deep), not a RangeError; 50 levels are fine', async () => {
  for (const [open, close] of [['[', ']'], ['{"a":', '}']] as const) {
    const r = await load(`{"name":"t","instance":{"image":"i"},"x":${open.repeat(100_000)}${close.repeat(100_000)}}`);
    assert.equal(r.template, undefined);
    assert.match(r.problems[0]!.message, /nested too deeply/i);
  }
  const ok = parseJsonc(`${'['.repeat(50)}${']'.repeat(50)}`);
  assert.deepEqual(ok.errors, []);
});

test('__proto__, constructor and prototype keys are reported as unknown properties, never silently dropped', async () => {
  const r = await load('{"name":"t","__proto__":{"x":1},"instance":{"image":"i","env":{"__proto__":{"A":"1"},"constructor":"x","prototype":"y","OK":"1"}}}');
  assert.equal(r.template, undefined);
  const where = r.problems.map((p) => p.where);
  for (const w of ['__proto__', 'instance.env.__proto__', 'instance.env.constructor', 'instance.env.prototype'])
    assert.ok(where.includes(w), `${w} not reported: ${JSON.stringify(r.problems)}`);
  for (const p of r.problems.filter((x) => /__proto__|constructor|prototype/.test(x.where))) assert.match(p.message, /Unknown property/);
  // also when the key only appears after expansion
  const viaEnv = await load(tpl({ env: { '${env:PROTO}': '1' } }));
  assert.ok(viaEnv.problems.some((p) => p.where === 'instance.env["${env:PROTO}"]' && /Unknown property/.test(p.message)), JSON.stringify(viaEnv.problems));
  // and the parser keeps such a key as data, not as the object's prototype
  const parsed = parseJsonc('{"__proto__": {"polluted": true}}').value as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
  assert.ok(Object.prototype.hasOwnProperty.call(parsed, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('problem paths show the unexpanded key, never the secret it expands to', async () => {
  for (const key of ['${secret:TOK}-x', '-p ${secret:TOK}:80', '${secret:TOK}\u0001']) {
    const r = await load(tpl({ env: { [key]: '1' } }));
    const p = r.problems.find((x) => x.path[1] === 'env');
    assert.ok(p, `${key}: ${JSON.stringify(r.problems)}`);
    assert.equal(p.path[2], key);
  }
});

test('odd but harmless inputs still load: deep-ish values, unicode keys, long strings', async () => {
  const r = await load(tpl({ env: { ÄÖ: 'x' } }));
  assert.ok(r.problems.length >= 1); // not a valid variable name: a problem, not an exception
  const big = await load(tpl({ onstart: 'x'.repeat(100_000) }));
  assert.ok(big.problems.some((p) => p.where === 'instance.onstart'));
});
