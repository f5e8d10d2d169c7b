import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { CLI_DEFAULT_FILTERS, QueryError, parseCliQuery, pointAt } from '../../../src/offers/cliQuery';
import { parseOfferQuery } from '../../../src/offers/offerQuery';
import { describeOfferQuery } from '../../../src/offers/offerQueryText';
import { offerQueryToWire, validateOfferQuery } from '../../../src/api/offerSchemas';

const defaults = { verified: { eq: true }, rentable: { eq: true }, external: { eq: false } };

function fails(text: string): QueryError {
  try {
    parseCliQuery(text);
  } catch (e) {
    assert.ok(e instanceof QueryError, `expected a QueryError, got ${String(e)}`);
    return e;
  }
  assert.fail(`'${text}' parsed, expected an error`);
}

test("the issue's example: operators with and without spaces, underscores become spaces, aliases, defaults", () => {
  const q = parseCliQuery('num_gpus>=2 gpu_name=RTX_4090 reliability>0.98 dph<1.5 verified=true');
  assert.deepEqual(q.filters, {
    verified: { eq: true },
    rentable: { eq: true },
    external: { eq: false },
    num_gpus: { gte: 2 },
    gpu_name: { eq: 'RTX 4090' },
    reliability: { gt: 0.98 },
    dph_total: { lt: 1.5 },
  });
  assert.deepEqual(q.order, [['score', 'desc']], 'best score first, as the CLI');
  assert.equal(q.type, undefined);
});

test('the CLI documented examples parse to the filters the CLI sends', () => {
  assert.deepEqual(parseCliQuery('reliability > 0.98 num_gpus=1 gpu_name=RTX_3090 rented=False').filters, {
    ...defaults,
    reliability: { gt: 0.98 },
    num_gpus: { eq: 1 },
    gpu_name: { eq: 'RTX 3090' },
    rented: { eq: false },
  });
  assert.deepEqual(parseCliQuery('compute_cap > 610 total_flops > 5 datacenter=True').filters, {
    ...defaults,
    compute_cap: { gt: 610 },
    total_flops: { gt: 5 },
    datacenter: { eq: true },
  });
  assert.deepEqual(parseCliQuery('reliability>0.99 num_gpus=4 geolocation in [TW,SE]').filters, {
    ...defaults,
    reliability: { gt: 0.99 },
    num_gpus: { eq: 4 },
    geolocation: { in: ['TW', 'SE'] },
  });
  assert.deepEqual(parseCliQuery('reliability>0.99 gpu_name in ["RTX 4090", "RTX 3090"] geolocation notin [CN,VN]').filters, {
    ...defaults,
    reliability: { gt: 0.99 },
    gpu_name: { in: ['RTX 4090', 'RTX 3090'] },
    geolocation: { notin: ['CN', 'VN'] },
  });
  // GB -> MB (×1000, decimal as the CLI), days -> seconds, cuda_vers -> cuda_max_good, a dotted version stays text
  assert.deepEqual(parseCliQuery('disk_space>146 duration>24 gpu_ram>10 cuda_vers>=12.1 direct_port_count>=2 driver_version >= 535.86.05').filters, {
    ...defaults,
    disk_space: { gt: 146 },
    duration: { gt: 24 * 86_400 },
    gpu_ram: { gt: 10_000 },
    cuda_max_good: { gte: 12.1 },
    direct_port_count: { gte: 2 },
    driver_version: { gte: '535.86.05' },
  });
  const unverified = parseCliQuery("reliability > 0.99  num_gpus>=4 verified=False rented=any -o 'num_gpus-'");
  assert.deepEqual(unverified.filters, {
    rentable: { eq: true },
    external: { eq: false },
    reliability: { gt: 0.99 },
    num_gpus: { gte: 4 },
    verified: { eq: false },
  });
  assert.deepEqual(unverified.order, [['num_gpus', 'desc']]);
  assert.deepEqual(parseCliQuery('cpu_arch=arm64').filters, { ...defaults, cpu_arch: { eq: 'arm64' } });
  assert.deepEqual(parseCliQuery('rentable = any').filters, { verified: { eq: true }, external: { eq: false } });
});

test('every operator, symbol and word form; repeated fields combine into a range', () => {
  const q = parseCliQuery(
    'num_gpus gte 2 num_gpus<=4 dph lt 1 score ge 10 min_bid le 0.5 cpu_cores gt 8 gpu_name == RTX_A6000 geolocation != CN id ne 5 host_id eq 7 machine_id nin [1,2] gpu_arch notin [amd] mobo_name not in [X]',
  );
  assert.deepEqual(q.filters.num_gpus, { gte: 2, lte: 4 });
  assert.deepEqual(q.filters.dph_total, { lt: 1 });
  assert.deepEqual(q.filters.score, { gte: 10 });
  assert.deepEqual(q.filters.min_bid, { lte: 0.5 });
  assert.deepEqual(q.filters.cpu_cores, { gt: 8 });
  assert.deepEqual(q.filters.gpu_name, { eq: 'RTX A6000' });
  assert.deepEqual(q.filters.geolocation, { neq: 'CN' });
  assert.deepEqual(q.filters.id, { neq: 5 });
  assert.deepEqual(q.filters.host_id, { eq: 7 });
  assert.deepEqual(q.filters.machine_id, { notin: [1, 2] });
  assert.deepEqual(q.filters.gpu_arch, { notin: ['amd'] });
  assert.deepEqual(q.filters.mobo_name, { notin: ['X'] });
});

test('units and aliases: cpu_ram and gpu_total_ram in GB, dlperf_usd, flops_usd; quoted values keep underscores', () => {
  const q = parseCliQuery("cpu_ram>=64 gpu_total_ram>=80.5 dlperf_usd>100 flops_usd>5 gpu_name='A100_SXM4'");
  assert.deepEqual(q.filters.cpu_ram, { gte: 64_000 });
  assert.deepEqual(q.filters.gpu_total_ram, { gte: 80_500 });
  assert.deepEqual(q.filters.dlperf_per_dphtotal, { gt: 100 });
  assert.deepEqual(q.filters.flops_per_dphtotal, { gt: 5 });
  assert.deepEqual(q.filters.gpu_name, { eq: 'A100_SXM4' });
});

test('any removes a default; -n drops all defaults; a named default field replaces the default', () => {
  assert.deepEqual(parseCliQuery('verified=any external=any rentable=any').filters, {});
  assert.deepEqual(parseCliQuery('-n num_gpus=1').filters, { num_gpus: { eq: 1 } });
  assert.deepEqual(parseCliQuery('verified!=false').filters.verified, { neq: false }, 'not {eq:true, neq:false}');
  assert.deepEqual(parseCliQuery('').filters, { ...CLI_DEFAULT_FILTERS });
});

test('a pasted CLI command with its quotes and options', () => {
  const q = parseCliQuery(`vastai search offers 'gpu_name=H100_SXM num_gpus>=4' -o 'dph,reliability-' --type=bid --limit 20 --storage 50`);
  assert.deepEqual(q.filters, { ...defaults, gpu_name: { eq: 'H100 SXM' }, num_gpus: { gte: 4 } });
  assert.deepEqual(q.order, [
    ['dph_total', 'asc'],
    ['reliability', 'desc'],
  ]);
  assert.equal(q.type, 'bid');
  assert.equal(q.limit, 20);
  assert.equal(q.allocatedStorage, 50);
  assert.equal(parseCliQuery('num_gpus=1 --interruptible').type, 'bid');
});

test('errors name the token and point at it', () => {
  let e = fails('num_gpus>=2 gpu_nme=RTX_4090');
  assert.match(e.message, /Unknown field 'gpu_nme' at column 13\. Did you mean 'gpu_name'\?/);
  assert.deepEqual([e.start, e.end], [12, 19]);
  assert.equal(pointAt('num_gpus>=2 gpu_nme=RTX_4090', e).split('\n')[1], `${' '.repeat(12)}^^^^^^^`);

  e = fails('num_gpus=>2');
  assert.match(e.message, /Unknown operator '=>' at column 9/);
  e = fails('num_gpus 2');
  assert.match(e.message, /After 'num_gpus' expected an operator .* found '2' at column 10/);
  e = fails('num_gpus>=two');
  assert.match(e.message, /num_gpus takes a number, not 'two' \(column 11\)/);
  assert.deepEqual([e.start, e.end], [10, 13]);
  e = fails('verified=maybe');
  assert.match(e.message, /verified takes true or false, not 'maybe'/);
  e = fails('verified>true');
  assert.match(e.message, /compare it with = or !=/);
  e = fails('reliability>');
  assert.match(e.message, /has no value/);
  e = fails('geolocation in [TW,SE');
  assert.match(e.message, /no closing \]/);
  e = fails('gpu_name="RTX 4090');
  assert.match(e.message, /Unclosed quote/);
  e = fails('gpu_name=[A,B]');
  assert.match(e.message, /A list needs 'in' or 'notin'/);
  e = fails('>=2');
  assert.match(e.message, /Expected a field name at column 1/);
  e = fails('num_gpus=1 -o price-');
  assert.match(e.message, /Cannot sort by 'price' \(column 15\)/);
  e = fails('num_gpus=1 --color');
  assert.match(e.message, /Unknown option '--color'/);
  e = fails('num_gpus=1 --type=reserved');
  assert.match(e.message, /--type is on-demand or bid/);
});

test('gpuRental.searchOffers forms: a query string becomes the service filter object on the wire', () => {
  const r = parseOfferQuery('num_gpus>=2 gpu_name=RTX_4090 dph<1.5');
  assert.ok(r.ok);
  assert.equal(r.query.text, 'num_gpus>=2 gpu_name=RTX_4090 dph<1.5');
  assert.equal(r.query.verified, undefined, 'no friendly defaults beside the filter object');
  assert.deepEqual(validateOfferQuery(r.query), []);
  assert.deepEqual(offerQueryToWire(r.query), {
    ...defaults,
    num_gpus: { gte: 2 },
    gpu_name: { eq: 'RTX 4090' },
    dph_total: { lt: 1.5 },
    order: [['score', 'desc']],
    type: 'on-demand',
    limit: 64,
  });
  assert.equal(describeOfferQuery(r.query), 'num_gpus>=2 gpu_name=RTX_4090 dph<1.5');
  const bad = parseOfferQuery('num_gpus>=2 gpu_nme=x');
  assert.equal(bad.ok, false);
  assert.deepEqual([(bad as { start: number }).start, (bad as { end: number }).end], [12, 19]);
});

test("gpuRental.searchOffers forms: the service's own filter object (a bare value means eq) is sent as given", () => {
  const r = parseOfferQuery({
    num_gpus: { gte: 1 },
    gpu_name: { in: ['RTX 4090', 'RTX 3090'] },
    verified: true,
    order: [['dph_total', 'asc']],
    type: 'ondemand',
    limit: 10,
  });
  assert.ok(r.ok, (r as { message?: string }).message);
  assert.deepEqual(offerQueryToWire(r.query), {
    num_gpus: { gte: 1 },
    gpu_name: { in: ['RTX 4090', 'RTX 3090'] },
    verified: { eq: true },
    order: [['dph_total', 'asc']],
    type: 'on-demand',
    limit: 10,
  });
  assert.equal(describeOfferQuery(r.query), 'num_gpus≥1 gpu_name in [RTX 4090, RTX 3090] verified=true');
  // the CLI's own habits: numbers as strings, unused fields as null
  const cli = parseOfferQuery({ num_gpus: { eq: '2' }, label: null, rentable: { eq: true } });
  assert.ok(cli.ok);
  assert.deepEqual(cli.query.filters, { num_gpus: { eq: '2' }, rentable: { eq: true } });

  for (const [value, re] of [
    [{ num_gpus: { between: [1, 2] } }, /num_gpus\.between: unknown operator/],
    [{ gpu_name: { in: 'RTX 4090' } }, /gpu_name\.in: must be a non-empty list/],
    [{ numGpus: 2, gpu_name: 'x' }, /numGpus: a documented key cannot be mixed/],
    [{ num_gpus: { gte: 1 }, order: 'dph_total' }, /order: must be a list/],
    [{ num_gpus: {} }, /num_gpus: must be a value or an object/],
  ] as const) {
    const bad = parseOfferQuery(value);
    assert.equal(bad.ok, false, JSON.stringify(value));
    assert.match((bad as { message: string }).message, re);
  }
});

test('the documented object still works, and a saved query of either new form round-trips', () => {
  const doc = parseOfferQuery({ gpuNames: ['RTX 4090'], numGpus: 1 });
  assert.ok(doc.ok);
  assert.equal(doc.query.verified, true);
  const text = parseOfferQuery('gpu_ram>=24 -o dph');
  assert.ok(text.ok);
  const again = parseOfferQuery(JSON.parse(JSON.stringify(text.query)));
  assert.deepEqual(again, text);
  const svc = parseOfferQuery({ num_gpus: 2, allocated_storage: 40 });
  assert.ok(svc.ok);
  assert.equal(svc.query.allocatedStorage, 40);
  assert.deepEqual(parseOfferQuery(JSON.parse(JSON.stringify(svc.query))), svc);
  assert.equal(parseOfferQuery({ filters: { num_gpus: { gte: 1 } }, numGpus: 2 }).ok, false, 'a saved filter object never mixes with documented keys');
});
