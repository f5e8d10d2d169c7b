// resumeCreations (src/app/commandTable.ts) loads only the bundles an interrupted creation needs:
// the create flow for any in-flight record, the groups' bundle only when a group is recorded.
import '../../kit/vscodeFake';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resumeCreations } from '../../../src/app/commandTable';
import { INFLIGHT_STATE_KEY, GROUPS_STATE_KEY } from '../../../src/core/stateKeys';
import { MemoryState } from '../../kit/state';

function run(state: MemoryState): string[] {
  const loaded: string[] = [];
  const listeners: Array<() => void> = [];
  const services = {
    globalState: state,
    log: { info() {}, warn() {}, error() {} },
    track() {},
    instances: { onDidChange: (l: () => void) => (listeners.push(l), { dispose() {} }) },
  };
  const loader = (name: string) => async () => (loaded.push(name), { keepWatching: async () => {}, resumeInterruptedGroups: async () => {} });
  resumeCreations(services as never, { createFlow: loader('createFlow'), createGroup: loader('createGroup') } as never);
  listeners.forEach((l) => l());
  return loaded;
}

const single = { instanceId: 7, label: 'train-ab12', templatePath: '.gpu/t.json', ssh: {}, targetState: 'running', startedAt: Date.now() };

test('a single machine in flight: the create flow is loaded, the groups bundle is not', () => {
  const state = new MemoryState();
  state.data.set(INFLIGHT_STATE_KEY, [single]);
  assert.deepEqual(run(state), ['createFlow']);
});

test('a group is recorded: its bundle is loaded too; nothing in flight: nothing is loaded', () => {
  const state = new MemoryState();
  state.data.set(GROUPS_STATE_KEY, [{ name: 'ddp-x1y2', overlayName: 'ddp-x1y2', status: 'renting', members: [{ rank: 0, label: 'ddp-x1y2-0' }] }]);
  assert.deepEqual(run(state), []);
  state.data.set(INFLIGHT_STATE_KEY, [{ ...single, label: 'ddp-x1y2-0' }]);
  assert.deepEqual(run(state), ['createFlow', 'createGroup']);
});
