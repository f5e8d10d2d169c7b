// A template's `count`: its schema, hover docs, one diagnostic per mistake, and what a group
// template cannot also say (src/create/groupTemplateRules.ts); the cluster pick (clusterPick.ts);
// the overlay list as the service answers it (src/api/overlaySchema.ts) and the request that joins one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { safeParse } from 'zod/mini';
import { loadTemplate, type TemplateContext } from '../../../src/create/templateValidation';
import { templateJsonSchema } from '../../../src/create/templateSchema';
import { clusterChoices } from '../../../src/groups/clusterPick';
import { overlayListSchema } from '../../../src/api/overlaySchema';
import { validateCreateRequest, offerQueryToWire } from '../../../src/api/schemas';
import { offerRecord } from '../../kit/fixtures';

const ctx: TemplateContext = { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined };

const base = { name: 'ddp', instance: { image: 'pytorch/pytorch:latest', runtype: 'ssh_direct' } };

async function problems(t: unknown) {
  return (await loadTemplate(JSON.stringify(t), ctx)).problems.filter((p) => p.severity === 'error');
}

test('count 1 to 64 is a valid template; 1 and absent are one machine', async () => {
  for (const count of [1, 2, 8, 64]) assert.deepEqual(await problems({ ...base, count }), [], `count ${count}`);
  assert.equal((await loadTemplate(JSON.stringify({ ...base, count: 3 }), ctx)).template?.count, 3);
});

test('each mistake in count is one diagnostic on count, saying what is allowed', async () => {
  for (const count of [0, 65, 2.5, '3', -1, null]) {
    const p = await problems({ ...base, count });
    assert.equal(p.length, 1, `count ${JSON.stringify(count)}: ${JSON.stringify(p)}`);
    assert.equal(p[0]!.where, 'count');
  }
});

test('a group template cannot be a VM, runtype args, stopped, interruptible, or join a network of its own: one diagnostic each, on that field', async () => {
  const cases: Array<[unknown, string]> = [
    [{ ...base, count: 2, instance: { ...base.instance, vm: true } }, 'instance.vm'],
    [{ ...base, count: 2, instance: { ...base.instance, runtype: 'args' }, guard: false }, 'instance.runtype'],
    [{ ...base, count: 2, instance: { ...base.instance, target_state: 'stopped' } }, 'instance.target_state'],
    [{ ...base, count: 2, offer: { type: 'bid', bidPrice: 0.5 } }, 'offer.type'],
    [{ ...base, count: 2, instance: { ...base.instance, env: { '-n mine': '1' } } }, 'instance.env["-n mine"]'],
  ];
  for (const [t, where] of cases) {
    const p = await problems(t);
    assert.deepEqual(
      p.map((x) => x.where),
      [where],
      JSON.stringify(p),
    );
    // The same template with count 1 has no group problem.
    const single = await problems({ ...(t as object), count: 1 });
    assert.ok(!single.some((x) => /group/.test(x.message)), JSON.stringify(single));
  }
});

test('count has hover docs and completion in the generated JSON Schema', () => {
  const count = (templateJsonSchema().properties as Record<string, { description?: string }>).count;
  assert.match(count?.description ?? '', /How many machines/);
  assert.match(count?.description ?? '', /multi-node/);
});

test('the cluster pick: N offers on N machines in one cluster, cheapest total first; clusters short of N or offers without a cluster are left out', () => {
  const offers = [
    offerRecord(1, { cluster_id: 7, machine_id: 1, dph_total: 1 }),
    offerRecord(2, { cluster_id: 7, machine_id: 1, dph_total: 0.1 }), // same machine as 1: only the cheaper counts
    offerRecord(3, { cluster_id: 7, machine_id: 2, dph_total: 0.5 }),
    offerRecord(4, { cluster_id: 8, machine_id: 3, dph_total: 0.2 }),
    offerRecord(5, { cluster_id: 8, machine_id: 4, dph_total: 0.2 }),
    offerRecord(6, { cluster_id: 9, machine_id: 5, dph_total: 0.01 }), // alone in its cluster
    offerRecord(7, { machine_id: 6, dph_total: 0.01 }), // no cluster
  ];
  const c = clusterChoices(offers, 2);
  assert.deepEqual(
    c.map((x) => [x.clusterId, x.offers.map((o) => o.id), Math.round(x.totalDph * 100) / 100]),
    [
      [8, [4, 5], 0.4],
      [7, [2, 3], 0.6],
    ],
  );
  assert.deepEqual(clusterChoices(offers, 3), []);
});

test('the overlay list is read tolerantly: rows without id or name dropped, members default to none', () => {
  const got = safeParse(overlayListSchema, [
    { overlay_id: 3, name: 'g', subnet: '10.0.0.0/24', cluster_id: 7, instance_count: 2, instances: [11, 12] },
    { overlay_id: '4', name: 'h' },
    { name: 'no-id' },
    'junk',
  ]);
  assert.ok(got.success);
  assert.deepEqual(got.data, [
    { overlayId: 3, name: 'g', clusterId: 7, subnet: '10.0.0.0/24', instanceIds: [11, 12] },
    { overlayId: 4, name: 'h', instanceIds: [] },
  ]);
});

test('a creation may join a network with "-n NAME": "1"; a bad name or value is refused, with its path', () => {
  assert.deepEqual(validateCreateRequest({ image: 'x', env: { '-n grp-1.a_b': '1' } }, { interruptible: false }), []);
  const bad = validateCreateRequest({ image: 'x', env: { '-n bad name!': '1', '-n ok': 'yes' } }, { interruptible: false });
  assert.equal(bad.length, 2, bad.join('\n'));
  assert.match(bad[0]!, /^env\["-n bad name!"\]: an overlay network name/);
  assert.match(bad[1]!, /^env\["-n ok"\]: joining an overlay network must have the value "1"/);
});

test('the search asks for offers in a cluster as the CLI does (cluster_id != None, or = N)', () => {
  assert.deepEqual(offerQueryToWire({ clusterId: 'any' }).cluster_id, { neq: null });
  assert.deepEqual(offerQueryToWire({ clusterId: 7 }).cluster_id, { eq: 7 });
  assert.equal(offerQueryToWire({}).cluster_id, undefined);
});
