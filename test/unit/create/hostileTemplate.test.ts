// Template files that try to crash the loader: every input yields diagnostics, never an
// exception, and no problem shows a secret value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTemplate, type LoadedTemplate } from '../../../src/create/templateValidation';
import { parseJsonc } from '../../../src/create/jsonc';
import { mulberry32 } from '../../../src/sim/prng';

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

const tpl = (instance: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 't', instance: { image: 'i', ...instance }, ...extra });

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
  for (const [open, close] of [
    ['[', ']'],
    ['{"a":', '}'],
  ] as const) {
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
  assert.ok(
    viaEnv.problems.some((p) => p.where === 'instance.env["${env:PROTO}"]' && /Unknown property/.test(p.message)),
    JSON.stringify(viaEnv.problems),
  );
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

test('a problem about a value never quotes the secret the value expands to', async () => {
  // the creation rules quote a wrong port-mapping value; expanded from a secret it must read ***
  const r = await load(tpl({ env: { '-p 80:80': '${secret:TOK}' } }));
  const p = r.problems.find((x) => x.where === 'instance.env["-p 80:80"]');
  assert.ok(p && /\*\*\*/.test(p.message), JSON.stringify(r.problems));
});

test('odd but harmless inputs still load: deep-ish values, unicode keys, long strings', async () => {
  const r = await load(tpl({ env: { ÄÖ: 'x' } }));
  assert.ok(r.problems.length >= 1); // not a valid variable name: a problem, not an exception
  const big = await load(tpl({ onstart: 'x'.repeat(100_000) }));
  assert.ok(big.problems.some((p) => p.where === 'instance.onstart'));
});

test('2,000 seeded mutations of a full template: every one loads to diagnostics, none throws or shows a secret', async () => {
  const fuzzCtx = { ...ctx, env: { ...ctx.env, Q: '"', BIG: 'y'.repeat(5000) }, readFile: async () => 'echo hi' };
  const base = JSON.stringify({
    name: 'n',
    offer: { gpuNames: ['RTX 4090'], maxDphTotal: 1, type: 'bid', bidPrice: 0.5, order: [['dph_total', 'asc']] },
    instance: {
      image: 'i',
      env: { A: '1', '-p 80:80': '1' },
      label: 'l',
      disk: 10,
      image_login: '-u a -p ${secret:TOK} r',
      onstartFile: 'x.sh',
      volume_info: { volume_id: 1, mount_path: '/m' },
    },
    ssh: { identityFile: '~/.ssh/k', localForwards: [{ localPort: 1, remotePort: 2 }] },
  });
  const atoms = [
    'null',
    'true',
    '1e400',
    '-0',
    '"${env:CTRL}"',
    '"${secret:TOK}"',
    '"${env:PROTO}"',
    '{}',
    '[]',
    '"\\u0000"',
    '"${"',
    '"${env:}"',
    '"${secret:}"',
    '{"__proto__":1}',
    '[[[[1]]]]',
    '"${workspaceFolder}"',
    '1.5',
    '"-p ${env:NL}:1"',
    '"a\\u2028b"',
    '"x${secret:TOK}y"',
    '{"${secret:TOK}": "${secret:TOK}"}',
    '"${env:Q}"',
  ];
  const rng = mulberry32(7);
  for (let n = 0; n < 2000; n++) {
    let t = base;
    for (let j = 0, k = 1 + Math.floor(rng() * 3); j < k; j++) {
      const m = [...t.matchAll(/"[^"]*"|-?\d+(?:\.\d+)?|true|false|null|\{\}|\[\]/g)];
      const at = m[Math.floor(rng() * m.length)]!;
      const a = atoms[Math.floor(rng() * atoms.length)]!;
      const r = rng();
      const rep = r < 0.6 ? a : r < 0.8 ? `{${at[0].startsWith('"') ? at[0] : '"k"'}: ${a}}` : `[${a}]`;
      t = t.slice(0, at.index) + rep + t.slice(at.index! + at[0].length);
    }
    let r: LoadedTemplate;
    try {
      r = await loadTemplate(t, fuzzCtx);
    } catch (e) {
      assert.fail(`mutation ${n} threw ${(e as Error).name}: ${(e as Error).message}\n${t}`);
    }
    assert.ok(!JSON.stringify(r.problems).includes(SECRET), `mutation ${n} shows the secret:\n${t}\n${JSON.stringify(r.problems)}`);
    assert.ok(r.template !== undefined || r.problems.some((p) => p.severity === 'error'), `mutation ${n}: no template and no error`);
  }
});
