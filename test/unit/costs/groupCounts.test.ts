import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { countItems, runningText } from '../../../src/costs/groupCounts';
import { readGroupIndex } from '../../../src/core/groupIndex';
import { summarizeCosts } from '../../../src/costs/costs';
import { GROUPS_STATE_KEY } from '../../../src/core/stateKeys';

const inst = (id: number, state: 'running' | 'stopped', dph: number): Instance => ({
  id,
  state,
  actual_status: state === 'running' ? 'running' : 'exited',
  intended_status: state,
  dph_total: dph,
  storage_cost: 0.01,
  instance: state === 'running' ? { totalHour: dph, diskHour: 0.01 } : { totalHour: 0.01, diskHour: 0.01, gpuCostPerHour: 0 },
});

/** The index as src/groups writes it (globalState gpuRental.groups). */
function index(groups: Array<{ name: string; ids: Array<number | undefined> }>) {
  const raw = groups.map((g) => ({
    name: g.name,
    overlayName: `o-${g.name}`,
    members: g.ids.map((id, rank) => ({ rank, label: `l${rank}`, ...(id !== undefined ? { instanceId: id } : {}) })),
  }));
  return readGroupIndex({ get: <T>(k: string) => (k === GROUPS_STATE_KEY ? (raw as T) : undefined) });
}

test('a group of 3 is one item with its total, its members are not counted again as running machines', () => {
  const list = [inst(1, 'running', 1), inst(2, 'running', 1), inst(3, 'running', 1), inst(4, 'running', 0.5)];
  const items = countItems(list, index([{ name: 'ddp', ids: [1, 2, 3] }]));
  assert.equal(runningText(items), '1 running · 1 group of 3');
  assert.deepEqual(
    items.singles.map((i) => i.id),
    [4],
  );
  assert.equal(items.activeGroups.length, 1);
  assert.equal(items.activeGroups[0]!.perHour, 3);
  // The $/h is the same sum either way: every machine once, not the group on top of its members.
  const s = summarizeCosts(list, undefined);
  const counted = items.activeGroups.reduce((a, g) => a + g.perHour, 0) + items.singles.reduce((a, i) => a + (i.dph_total ?? 0), 0);
  assert.equal(Number(s.totalPerHour.toFixed(4)), Number(counted.toFixed(4)));
});

test('only groups: "1 group of 2", two groups name the machines; none: the plain count', () => {
  const list = [inst(1, 'running', 1), inst(2, 'running', 1), inst(5, 'running', 1), inst(6, 'running', 1), inst(7, 'running', 1)];
  assert.equal(runningText(countItems(list.slice(0, 2), index([{ name: 'a', ids: [1, 2] }]))), '1 group of 2');
  assert.equal(
    runningText(
      countItems(
        list,
        index([
          { name: 'a', ids: [1, 2] },
          { name: 'b', ids: [5, 6, 7] },
        ]),
      ),
    ),
    '2 groups (5 machines)',
  );
  assert.equal(runningText(countItems(list, [])), '5 running');
});

test('a stopped group is not running; a member not yet rented or not listed is not counted; an id in two records is counted once', () => {
  const list = [inst(1, 'stopped', 1), inst(2, 'stopped', 1), inst(3, 'running', 2)];
  const items = countItems(
    list,
    index([
      { name: 'a', ids: [1, 2, undefined, 99] },
      { name: 'b', ids: [2, 3] },
    ]),
  );
  assert.equal(items.idleGroups.length, 1);
  assert.equal(items.idleGroups[0]!.members.length, 2);
  assert.deepEqual(
    items.activeGroups.map((g) => [g.name, g.members.map((m) => m.id)]),
    [['b', [3]]],
  );
  assert.equal(items.singles.length, 0);
  assert.equal(runningText(items), '1 group of 1');
});
