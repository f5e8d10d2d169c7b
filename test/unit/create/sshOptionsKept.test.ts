// The create flow records a template's ssh section per instance (globalState gpuRental.sshOptions)
// and nothing forgets it while the instance exists: not a finished creation, not a creation that
// ends stopped, not a creation resumed after a restart, not a stop/start or a list read that
// missed the instance. The entry written then and rewritten after a move in a new session keeps
// the template's key over the setting's (proven by `ssh -G`). Against the simulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/api/types';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { type SshOptionsByInstance } from '../../../src/ssh/sshTypes';
import { readInflight, resumeInflight, runCreateFlow } from '../../../src/create/createFlow';
import type { Template } from '../../../src/create/templateSchema';
import { noSsh } from '../ssh/sshG';
import { syncHarness } from '../ssh/syncHarness';
import { assertTemplateEntry, otherKey, templateSsh } from '../ssh/templateEntry';
import { inTempDir } from '../../kit/temp';
import { flowSim, harness, simInstances, template as base, useFlowSim } from './flowHarness';
import { MemoryState } from '../../kit/state';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';

useFlowSim();

const template: Template = { ...base, ssh: templateSsh };

/** A window reload: globalState comes back from its stored JSON. */
function reloaded(state: MemoryState): MemoryState {
  const next = new MemoryState();
  for (const [k, v] of state.data) next.data.set(k, JSON.parse(JSON.stringify(v)));
  return next;
}

const recordedOf = (state: MemoryState) => state.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {};

/** The instance as the list shows it, moved as a stop/start can move it (new direct and proxy ports). */
function moved(inst: Instance): Instance {
  return { ...inst, ssh_port: inst.ssh_port! + 7, ports: (inst.ports ?? []).map((p) => ({ ...p, hostPort: p.hostPort + 11 })) };
}

async function listed(id: number): Promise<Instance> {
  const inst = (await simInstances()).find((i) => i.id === id);
  assert.ok(inst, `instance ${id} is listed`);
  return inst;
}

test(
  'after a finished creation, a stop/start, a read that missed it and a reload, the recorded options are there and the moved entry keeps the template key',
  { skip: noSsh },
  () =>
    inTempDir('gpu-ssh-kept-', async (home) => {
      const h = harness();
      // The create flow's writer as createWriter makes it: the setting names another key.
      h.ports.ssh = new SshConfigWriter({ home, identityFile: otherKey(home, 'setting') });
      const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false });
      assert.ok(r.outcome === 'running' && r.alias, JSON.stringify(r));
      const id = r.instance.id;
      const alias = r.alias;
      assert.deepEqual(readInflight(h.state), [], 'the in-flight record is finished and removed');
      assert.deepEqual(recordedOf(h.state), { [String(id)]: templateSsh }, 'the recorded options stay');

      const sync = syncHarness({ identityFile: otherKey(home, 'setting') }, home);
      sync.state.registered = recordedOf(h.state);
      assertTemplateEntry(sync.writer.configPath, alias, home, r.instance, 'as created');

      await h.api.setInstanceState(id, 'stopped');
      sync.set([await listed(id)]);
      await sync.sync.flush();
      assertTemplateEntry(sync.writer.configPath, alias, home, r.instance, 'stopped: the entry stays');
      await h.api.setInstanceState(id, 'running');
      await flowSim.control.finishBoot(id);
      const again = await listed(id);
      sync.set([]); // one list read that misses it
      await sync.sync.flush();
      sync.set([moved(again)]);
      await sync.sync.flush();
      assertTemplateEntry(sync.writer.configPath, alias, home, moved(again), 'started and moved');
      assert.deepEqual(recordedOf(h.state), { [String(id)]: templateSsh }, 'nothing forgot them');
      sync.sync.dispose();

      // A new session: the options come back from globalState, a fresh writer and sync; it moves again.
      const state = reloaded(h.state);
      const next = syncHarness({ identityFile: otherKey(home, 'picked') }, home);
      next.state.registered = recordedOf(state);
      const twice = moved(moved(again));
      next.set([twice]);
      await next.sync.flush();
      assertTemplateEntry(next.writer.configPath, alias, home, twice, 'after a reload, moved again');
      next.sync.dispose();
    }),
);

test('a creation that ends stopped keeps its options: when it runs, entry sync writes the entry with the template key', { skip: noSsh }, () =>
  inTempDir('gpu-ssh-kept-', async (home) => {
    const h = harness();
    h.ports.ssh = new SshConfigWriter({ home, identityFile: otherKey(home, 'setting') });
    const r = await runCreateFlow(h.ports, {
      template: { ...template, instance: { ...template.instance, target_state: 'stopped' } },
      templatePath: '.gpu/t.json',
      confirm: false,
    });
    assert.equal(r.outcome, 'stopped', JSON.stringify(r));
    if (r.outcome !== 'stopped') return;
    const id = r.instance.id;
    assert.deepEqual(readInflight(h.state), []);
    assert.deepEqual(recordedOf(reloaded(h.state)), { [String(id)]: templateSsh });

    await h.api.setInstanceState(id, 'running');
    await flowSim.control.finishBoot(id);
    const sync = syncHarness({ identityFile: otherKey(home, 'setting') }, home);
    sync.state.registered = recordedOf(reloaded(h.state));
    const inst = await listed(id);
    sync.set([inst]);
    await sync.sync.flush();
    const entry = await sync.writer.findEntry(id);
    assert.ok(entry, 'the sync wrote its entry');
    assertTemplateEntry(sync.writer.configPath, entry.alias, home, inst, 'written by the sync');
    sync.sync.dispose();
  }),
);

test('a creation resumed after a restart writes the template key, and its options stay once the in-flight record is removed', { skip: noSsh }, () =>
  inTempDir('gpu-ssh-kept-', async (home) => {
    const h = harness({ prompts: { keepOrDestroy: async () => 'keep' } });
    const ac = new AbortController();
    const sleep = h.clock.sleep;
    h.ports.clock = { ...h.clock, sleep: async (ms, s) => (await sleep(ms, s), ac.abort()) };
    const r = await runCreateFlow(h.ports, { template, templatePath: '.gpu/t.json', confirm: false, signal: ac.signal });
    assert.ok(r.outcome === 'cancelled' && r.keptId, JSON.stringify(r));
    const id = r.keptId!;

    const h2 = harness({ state: reloaded(h.state) });
    h2.ports.ssh = new SshConfigWriter({ home, identityFile: otherKey(home, 'picked') });
    const [res] = await resumeInflight(h2.ports, {});
    assert.ok(res?.outcome === 'ready' && res.alias, JSON.stringify(res));
    assert.deepEqual(readInflight(h2.state), []);
    assert.deepEqual(recordedOf(h2.state), { [String(id)]: templateSsh });
    const inst = await listed(id);
    assertTemplateEntry(new SshConfigWriter({ home }).configPath, res.alias, home, inst, 'written by the resume');
    // Connect later, with the setting naming another key and the options recorded: the template's key.
    await new SshConfigWriter({ home, identityFile: otherKey(home, 'setting') }).writeEntry(moved(inst), recordedOf(h2.state)[String(id)], {
      key: otherKey(home, 'setting'),
    });
    assertTemplateEntry(new SshConfigWriter({ home }).configPath, res.alias, home, moved(inst), 'Connect after a move');
  }),
);
