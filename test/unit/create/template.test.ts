import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { templateJsonSchema, type Template } from '../../../src/create/templateSchema';
import { parseJsonc } from '../../../src/create/jsonc';
import { formatPath, pathKey } from '../../../src/create/jsonPath';
import { expandValue, type VariableProblem } from '../../../src/create/templateVariables';
import { loadTemplate, type TemplateContext } from '../../../src/create/templateValidation';
import { baseLabel, buildCreateRequest, buildOfferQuery, uniqueLabel } from '../../../src/create/requestBuilder';
import { rankOffers } from '../../../src/create/ranking';
import { discoverTemplates } from '../../../src/create/templateDiscovery';
import { matchesGlob } from '../../../src/create/templateGlob';
import { inFixtureTree } from '../../kit/temp';
import { parseProblem } from '../../../src/create/creationRules';
import type { Offer } from '../../../src/api/types';
import { exampleTemplate } from '../../../src/create/templateExample';
import { repoRoot } from '../repoRoot';
import { offerRecord } from '../../kit/fixtures';

const SECRET_VALUE = 'hunter2-not-for-logs';

function ctx(files: Record<string, string> = {}, extra: Partial<TemplateContext> = {}): TemplateContext {
  return {
    workspaceFolder: '/home/me/projects/my-model',
    env: { HF_HOME: '/cache/hf', PORT: '7860' },
    secret: async (n) => (n === 'HF_TOKEN' ? SECRET_VALUE : undefined),
    readFile: async (p) => files[p],
    ...extra,
  };
}

test('the committed JSON Schema is generated from the zod schema and up to date', () => {
  const file = join(repoRoot(), 'schemas/template.schema.json');
  const committed = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(committed, templateJsonSchema(), 'schemas/template.schema.json is stale: run node scripts/gen-template-schema.mjs');
});

test('the JSON Schema documents and completes but never validates: each mistake is reported once, by the extension', () => {
  const found: string[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`));
    if (typeof node !== 'object' || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (at.endsWith('.properties')) walk(v, `${at}.${k}`);
      else if (
        [
          'type',
          'required',
          'additionalProperties',
          'enum',
          'const',
          'minimum',
          'maximum',
          'exclusiveMinimum',
          'minLength',
          'maxLength',
          'minItems',
          'pattern',
          'anyOf',
          'oneOf',
          'allOf',
          'not',
        ].includes(k)
      )
        found.push(`${at}.${k}`);
      else walk(v, `${at}.${k}`);
    }
  };
  walk(templateJsonSchema(), '$');
  assert.deepEqual(found, []);
  const offer = (templateJsonSchema().properties as Record<string, { properties: Record<string, { examples?: unknown[] }> }>).offer!;
  assert.deepEqual(offer.properties.type!.examples, ['on-demand', 'bid'], 'allowed values still complete');
  assert.deepEqual(offer.properties.verified!.examples, [true, false]);
});

test('every property in the JSON Schema has a description (hover docs)', () => {
  const missing: string[] = [];
  const walk = (node: Record<string, unknown>, at: string) => {
    const props = node.properties as Record<string, Record<string, unknown>> | undefined;
    for (const [k, v] of Object.entries(props ?? {})) {
      if (typeof v.description !== 'string' || !v.description) missing.push(`${at}.${k}`);
      walk(v, `${at}.${k}`);
      const items = v.items as Record<string, unknown> | undefined;
      if (items && typeof items === 'object' && !Array.isArray(items)) walk(items, `${at}.${k}[]`);
    }
  };
  walk(templateJsonSchema(), '$');
  assert.deepEqual(missing, []);
  const s = templateJsonSchema() as { properties: Record<string, { properties?: Record<string, unknown> }> };
  // every creation-table field and every search filter is in the format
  for (const f of [
    'image',
    'template_hash_id',
    'label',
    'disk',
    'runtype',
    'target_state',
    'env',
    'onstart',
    'onstartFile',
    'args_str',
    'use_jupyter_lab',
    'jupyter_dir',
    'python_utf8',
    'lang_utf8',
    'image_login',
    'cancel_unavail',
    'vm',
    'volume_info',
  ])
    assert.ok(s.properties.instance!.properties![f], `instance.${f}`);
  for (const f of [
    'gpuNames',
    'numGpus',
    'minNumGpus',
    'minGpuRamGb',
    'minReliability',
    'verified',
    'rentable',
    'minDirectPorts',
    'maxDphTotal',
    'type',
    'bidPrice',
    'order',
    'limit',
  ])
    assert.ok(s.properties.offer!.properties![f], `offer.${f}`);
});

test('JSONC: comments and trailing commas parse, locations point at keys and values', () => {
  const text = '// header\n{\n  /* c */ "name": "x", // trailing\n  "instance": { "env": { "-p 80:80": "1", }, },\n}\n';
  const r = parseJsonc(text);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.value, { name: 'x', instance: { env: { '-p 80:80': '1' } } });
  const loc = r.locations.get(pathKey(['instance', 'env', '-p 80:80']))!;
  assert.equal(text.slice(loc.keyOffset!, loc.keyOffset! + loc.keyLength!), '"-p 80:80"');
  assert.equal(text.slice(loc.offset, loc.offset + loc.length), '"1"');
  const bad = parseJsonc('{ "a": 1 "b": 2 }');
  assert.equal(bad.errors.length, 1);
  assert.equal(bad.errors[0]!.offset, 9);
  assert.equal(formatPath(['instance', 'env', '-p 80:80']), 'instance.env["-p 80:80"]');
  assert.equal(formatPath(['offer', 'gpuNames', 0]), 'offer.gpuNames[0]');
});

test('variables expand in strings and keys; secrets resolve but never appear in problems', async () => {
  const problems: VariableProblem[] = [];
  const v = await expandValue(
    {
      a: '${workspaceFolder}/x',
      b: 'name-${workspaceFolderBasename}',
      c: ['${env:HF_HOME}'],
      d: { TOKEN: '${secret:HF_TOKEN}', '-p ${env:PORT}:${env:PORT}': '1' },
      e: '${env:NOPE} ${secret:MISSING} ${bogus}',
      n: 3,
    },
    ctx(),
    problems,
  );
  assert.deepEqual(v, {
    a: '/home/me/projects/my-model/x',
    b: 'name-my-model',
    c: ['/cache/hf'],
    d: { TOKEN: SECRET_VALUE, '-p 7860:7860': '1' },
    e: '${env:NOPE} ${secret:MISSING} ${bogus}',
    n: 3,
  });
  assert.deepEqual(
    problems.map((p) => formatPath(p.path)),
    ['e', 'e', 'e'],
  );
  assert.match(problems[0]!.message, /NOPE is not set/);
  assert.match(problems[1]!.message, /Set Template Secret/);
  assert.match(problems[2]!.message, /Unknown variable \$\{bogus\}/);
  const none: VariableProblem[] = [];
  await expandValue('${workspaceFolder}', ctx({}, { workspaceFolder: undefined }), none);
  assert.match(none[0]!.message, /open workspace folder/);
});

test('a valid template loads, expands, and reads onstartFile', async () => {
  const text = JSON.stringify({
    $schema: '../schemas/template.schema.json',
    name: 'vllm',
    offer: { gpuNames: ['RTX 4090'], type: 'bid', bidPrice: 0.3 },
    instance: { template_hash_id: 'abc', env: { HF_TOKEN: '${secret:HF_TOKEN}', '-p 8000:8000': '1' }, onstartFile: 'scripts/start.sh', runtype: 'ssh_direct' },
    ssh: { remoteFolder: '/workspace/${workspaceFolderBasename}', localForwards: [{ localPort: 8000, remotePort: 8000 }] },
  });
  const r = await loadTemplate(text, ctx({ 'scripts/start.sh': 'vllm serve x &\n' }));
  assert.deepEqual(r.problems, []);
  assert.equal(r.onstart, 'vllm serve x &\n');
  assert.equal(r.template!.instance.env!.HF_TOKEN, SECRET_VALUE);
  assert.equal(r.template!.ssh!.remoteFolder, '/workspace/my-model');
});

test('validation reports every problem at once, each with its JSON path, and no secret values', async () => {
  const longScript = 'x'.repeat(4049);
  const text = `{
  // comments are fine
  "name": "",
  "color": "blue",
  "offer": { "type": "on-demand", "bidPrice": 0.5, "minReliability": 1.5, "numGpus": 1, "minNumGpus": 2 },
  "instance": {
    "runtype": "warp",
    "args_str": "python serve.py",
    "onstartFile": "start.sh",
    "env": { "-e FOO=1": "", "TOKEN": "\${secret:HF_TOKEN}", "-p 8080": "1", "-p 9000:9000": "yes" },
    "volume_info": { "volume_id": 3 },
    "disk": -1,
    "image_login": "-u me -p \${secret:REGISTRY}"
  }
}`;
  const r = await loadTemplate(text, ctx({ 'start.sh': longScript }));
  const where = r.problems.map((p) => p.where);
  const expect = [
    'name', // too short
    'color', // unknown key
    'offer.bidPrice', // price on on-demand
    'offer.minReliability',
    'offer.minNumGpus', // both numGpus and minNumGpus
    'instance.runtype', // unknown runtype
    'instance.args_str', // args_str without runtype args
    'instance.onstartFile', // onstart over 4048 after reading the file
    'instance.env["-e FOO=1"]', // -e strings
    'instance.env["-p 8080"]', // malformed port key
    'instance.env["-p 9000:9000"]', // port value not "1"
    'instance.volume_info.mount_path', // volume_info incomplete
    'instance.disk',
    'instance.image_login', // missing secret
  ];
  for (const w of expect) assert.ok(where.includes(w), `missing problem at ${w}; got ${JSON.stringify(where)}`);
  assert.equal(r.template, undefined);
  for (const p of r.problems) {
    assert.ok(!p.message.includes(SECRET_VALUE), `secret in: ${p.message}`);
    assert.equal(typeof p.offset, 'number', `no range for ${p.where}`);
  }
  const onstart = r.problems.find((p) => p.where === 'instance.onstartFile')!;
  assert.match(onstart.message, /4049/);
  // a problem on a property points at its key in the file
  const color = r.problems.find((p) => p.where === 'color')!;
  assert.equal(text.slice(color.offset!, color.offset! + color.length!), '"color"');
});

test('template-only rules: bid needs bidPrice, onstartFile must exist and stay in the workspace, image or template needed', async () => {
  const r1 = await loadTemplate(JSON.stringify({ name: 'b', offer: { type: 'bid' }, instance: { image: 'x' } }), ctx());
  assert.deepEqual(
    r1.problems.map((p) => p.where),
    ['offer.bidPrice'],
  );
  assert.match(r1.problems[0]!.message, /interruptible/);
  const r2 = await loadTemplate(JSON.stringify({ name: 'b', instance: { image: 'x', onstartFile: 'nope.sh' } }), ctx());
  assert.deepEqual(
    r2.problems.map((p) => p.where),
    ['instance.onstartFile'],
  );
  assert.match(r2.problems[0]!.message, /does not exist/);
  const r3 = await loadTemplate(JSON.stringify({ name: 'b', instance: { image: 'x', onstartFile: '../etc/passwd' } }), ctx());
  assert.match(r3.problems[0]!.message, /inside the workspace/);
  const r4 = await loadTemplate(JSON.stringify({ name: 'b', instance: {} }), ctx());
  assert.deepEqual(
    r4.problems.map((p) => p.where),
    ['instance.image'],
  );
  const r5 = await loadTemplate(JSON.stringify({ name: 'b', instance: { image: 'x', onstart: 'a', onstartFile: 's.sh' } }), ctx({ 's.sh': 'b' }));
  assert.deepEqual(
    r5.problems.map((p) => p.where),
    ['instance.onstartFile'],
  );
  const r6 = await loadTemplate('{ "name": "b", ', ctx());
  assert.equal(r6.problems[0]!.where, '(syntax)');
  const r7 = await loadTemplate(JSON.stringify({ instance: { image: 'x' } }), ctx());
  assert.deepEqual(
    r7.problems.map((p) => [p.where, p.message]),
    [['name', 'Required: add this string value.']],
  );
  // Whole words for each JSON type, each side its own translatable text ("an array", not "a array"; "a number", not "number").
  const r8 = await loadTemplate(JSON.stringify({ name: 5, instance: [] }), ctx());
  assert.deepEqual(
    r8.problems.slice(0, 2).map((p) => [p.where, p.message]),
    [
      ['name', 'Must be a string, not a number.'],
      ['instance', 'Must be an object, not an array.'],
    ],
  );
});

test('API layer problem strings map onto request paths', () => {
  assert.deepEqual(parseProblem('env["-p 8080:80"]: a port mapping must have the value "1"'), {
    path: ['env', '-p 8080:80'],
    message: 'a port mapping must have the value "1"',
  });
  assert.deepEqual(parseProblem('volume_info.mount_path: required'), { path: ['volume_info', 'mount_path'], message: 'required' });
  assert.deepEqual(parseProblem('the creation request must be an object'), { path: [], message: 'the creation request must be an object' });
});

test('request building: query filters, env object with port keys, price only for bid, unique label', () => {
  const t: Template = {
    name: 'My Model!',
    offer: {
      gpuNames: ['A100'],
      minNumGpus: 2,
      minGpuRamGb: 40,
      minReliability: 0.98,
      verified: true,
      rentable: true,
      minDirectPorts: 2,
      maxDphTotal: 3,
      limit: 20,
      type: 'on-demand',
      bidPrice: undefined,
    },
    instance: {
      image: 'img',
      disk: 50,
      runtype: 'jupyter_direct',
      env: { A: '1', '-p 8888:8888': '1' },
      use_jupyter_lab: true,
      volume_info: { volume_id: 4, mount_path: '/data' },
    },
  };
  assert.deepEqual(buildOfferQuery(t), {
    gpuNames: ['A100'],
    minNumGpus: 2,
    minGpuRamGb: 40,
    minReliability: 0.98,
    verified: true,
    rentable: true,
    minDirectPorts: 2,
    maxDphTotal: 3,
    limit: 20,
    type: 'on-demand',
    order: [['dph_total', 'asc']],
    // the template's disk: the quoted price includes it (service-today section 9)
    allocatedStorage: 50,
  });
  const req = buildCreateRequest(t, 'lbl-abc123', 'echo hi');
  assert.deepEqual(req, {
    image: 'img',
    disk: 50,
    runtype: 'jupyter_direct',
    use_jupyter_lab: true,
    label: 'lbl-abc123',
    env: { A: '1', '-p 8888:8888': '1' },
    onstart: 'echo hi',
    volume_info: { volume_id: 4, mount_path: '/data' },
  });
  assert.equal('price' in req, false);
  const bid: Template = { name: 'b', offer: { type: 'bid', bidPrice: 0.25, rank: 'best-value' }, instance: { template_hash_id: 'h' } };
  assert.equal(buildCreateRequest(bid, 'l').price, 0.25);
  assert.deepEqual(buildOfferQuery(bid).order, [['dlperf_per_dphtotal', 'desc']]);
  assert.equal(buildOfferQuery(bid).type, 'bid');
  assert.equal(buildOfferQuery(bid).allocatedStorage, 8, 'the service default when the template names no disk');
  assert.equal(baseLabel(t), 'My-Model');
  let i = 0;
  const seq = [0.1, 0.5, 0.9, 0.0, 0.99, 0.3];
  // A short suffix (4 base36 characters, 1.7 million per label) keeps the row's price in view.
  assert.equal(
    uniqueLabel('x', () => seq[i++ % seq.length]!),
    'x-3iw0',
  );
  for (let k = 0; k < 50; k++) assert.match(uniqueLabel('x'), /^x-[0-9a-z]{4}$/);
});

test('offer ranking: cheapest first, best value, price cap and bid floor', () => {
  const o = (id: number, dph: number, extra: Partial<Offer> = {}): Offer => offerRecord(id, { dph_total: dph, ...extra });
  const offers = [
    o(1, 0.5, { dlperf: 50, reliability: 0.9 }),
    o(2, 0.3, { dlperf: 15 }),
    o(3, 0.3, { dlperf: 30, reliability: 0.99 }),
    o(4, 2, { dlperf: 400 }),
    o(5, 0.4, { dlperf_per_dphtotal: 500, min_bid: 0.35 }),
  ];
  assert.deepEqual(
    rankOffers(offers).map((x) => x.id),
    [3, 2, 5, 1, 4],
  );
  assert.deepEqual(
    rankOffers(offers, { rank: 'best-value' }).map((x) => x.id),
    [5, 4, 3, 1, 2],
  );
  assert.deepEqual(
    rankOffers(offers, { maxDphTotal: 0.45 }).map((x) => x.id),
    [3, 2, 5],
  );
  assert.deepEqual(
    rankOffers(offers, { bidPrice: 0.3 }).map((x) => x.id),
    [3, 2, 1, 4],
  );
});

test('discovery: glob setting, JSONC names, broken files still listed', async () => {
  assert.ok(matchesGlob('.gpu/a.json', '.gpu/*.json'));
  assert.ok(!matchesGlob('.gpu/sub/a.json', '.gpu/*.json'));
  assert.ok(matchesGlob('x/y/.gpu/a.jsonc', '**/.gpu/*.{json,jsonc}'));
  const files = {
    '.gpu/b.json': '// comment\n{ "name": "Bee", "description": "d", "instance": {} }',
    '.gpu/a.json': '{ broken',
    '.gpu/notes.txt': 'x',
    'node_modules/.gpu/c.json': '{}',
  };
  await inFixtureTree('gpu-tpl-', files, async (root) => {
    const found = await discoverTemplates(root);
    assert.deepEqual(
      found.map((f) => [f.relativePath, f.name, f.broken ?? false]),
      [
        ['.gpu/a.json', 'a', true],
        ['.gpu/b.json', 'Bee', false],
      ],
    );
    assert.equal(found[1]!.description, 'd');
  });
});

test('the demo workspace sample templates are valid, and their idle guard acts after 2 minutes (seen within minutes in the demo)', async () => {
  const dir = join(repoRoot(), 'demo-workspace/.gpu');
  const files = existsSync(dir) ? await discoverTemplates(resolve(dir, '..')) : [];
  assert.ok(files.length >= 2, 'expected sample templates in demo-workspace/.gpu');
  for (const f of files) {
    const r = await loadTemplate(readFileSync(f.file, 'utf8'), {
      ...ctx(),
      workspaceFolder: resolve(dir, '..'),
      secret: async () => 'placeholder',
      env: {},
      readFile: async (p) => (existsSync(join(dir, '..', p)) ? readFileSync(join(dir, '..', p), 'utf8') : undefined),
    });
    assert.deepEqual(r.problems, [], f.relativePath);
    const guard = r.template?.guard;
    assert.ok(guard && typeof guard === 'object' && guard.idleMinutes === 2, `${f.relativePath}: guard ${JSON.stringify(guard)}`);
  }
});

test('the "New Template" example is valid and commented, and named after its file', async () => {
  const text = exampleTemplate('llama-finetune');
  assert.match(text, /\/\/ /);
  const r = await loadTemplate(text, ctx());
  assert.deepEqual(r.problems, []);
  assert.equal(r.template!.instance.label, 'my-model');
  assert.equal(r.template!.name, 'llama-finetune', "not a sample template's name: two identical titles in the picker");
  assert.equal((await loadTemplate(exampleTemplate('a "quoted" name'), ctx())).template!.name, 'a "quoted" name');
});
