// Stop Group and Start Group against the simulator over loopback, in both eras: the today era's
// service takes the members in one bulk call (PUT /api/v0/instances/, at most 64 ids); the seed's
// answers that call 404, and every member is then set one by one. Each check reads the machines'
// states back from the simulator, not what the function says.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, type Harness } from '../api/helpers';
import { setGroupState } from '../../../src/groups/groupActions';
import type { GroupRecord } from '../../../src/groups/groupRecords';
import { MemoryState } from '../../kit/state';

let h: Harness;
useHarness({ instances: 0 }, (x) => (h = x), { resetEach: true });

async function groupOf(n: number): Promise<GroupRecord> {
  await h.ctl.seed({ instances: n });
  const ids = (await h.client().listInstances()).instances.map((i) => i.id).sort((a, b) => a - b);
  assert.equal(ids.length, n);
  return {
    name: 'ddp',
    overlayName: 'ddp-net',
    clusterId: 1,
    templatePath: '.gpu/ddp.json',
    count: n,
    gpusPerNode: 1,
    members: ids.map((instanceId, rank) => ({ rank, label: `ddp-${rank}`, instanceId, dphTotal: 1 })),
    createdAt: 0,
    status: 'ready',
    masterPort: 29500,
  };
}

const ports = () => ({ api: h.client(), log: h.log, state: new MemoryState() });
const intended = async () => (await h.client().listInstances()).instances.map((i) => i.intended_status).sort();
const writes = async () => (await h.ctl.requests()).filter((r) => r.method === 'PUT' && r.path.startsWith('/api/v0/instances'));

for (const era of ['today', 'seed'] as const) {
  describe(`era ${era}`, () => {
    test(
      era === 'today'
        ? 'stop and start: one bulk call each, every member changes'
        : 'the bulk call answers 404: every member is stopped and started one by one',
      async () => {
        await h.ctl.setEra(era);
        const g = await groupOf(3);
        assert.deepEqual(await setGroupState(ports(), g, 'stopped'), []);
        assert.deepEqual(await intended(), ['stopped', 'stopped', 'stopped']);
        assert.deepEqual(await setGroupState(ports(), g, 'running'), []);
        assert.deepEqual(await intended(), ['running', 'running', 'running']);
        const w = await writes();
        const bulk = w.filter((r) => /^\/api\/v0\/instances\/?$/.test(r.path));
        const single = w.filter((r) => /^\/api\/v0\/instances\/\d+\/?$/.test(r.path));
        if (era === 'today') {
          assert.deepEqual(
            bulk.map((r) => r.status),
            [200, 200],
          );
          assert.equal(single.length, 0, 'no member was set on its own');
        } else {
          assert.deepEqual(
            bulk.map((r) => r.status),
            [404, 404],
          );
          assert.equal(single.length, 6);
        }
      },
    );
  });
}

test('a member the service no longer lists: the bulk call changes nothing (404), the others are then stopped one by one and only the gone one is named', async () => {
  await h.ctl.setEra('today');
  const g = await groupOf(3);
  const gone = g.members[1]!.instanceId!;
  await h.client().destroyInstance(gone);
  const failed = await setGroupState(ports(), g, 'stopped');
  assert.deepEqual(failed, [gone]);
  assert.deepEqual(await intended(), ['stopped', 'stopped']);
  assert.match(h.log.text(), new RegExp(`stopping instance ${gone} failed`));
});

test('more than 64 members: the bulk calls take at most 64 ids each', async () => {
  await h.ctl.setEra('today');
  const g = await groupOf(3);
  const many: GroupRecord = { ...g, members: Array.from({ length: 65 }, (_, k) => ({ ...g.members[k % 3]!, rank: k })) };
  assert.deepEqual(await setGroupState(ports(), many, 'stopped'), []);
  const bulk = (await writes()).filter((r) => /^\/api\/v0\/instances\/?$/.test(r.path));
  assert.deepEqual(
    bulk.map((r) => r.status),
    [200, 200],
  );
  assert.deepEqual(await intended(), ['stopped', 'stopped', 'stopped']);
});
