// What a test-control reset keeps: the service's ids never repeat, so a reset gives a fresh
// account but every id after it is new. Clients and the simulator keep state per id (SSH
// entries, guard state, in-flight rentals; the instance's scratch folder and SSH listener).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { anOffer, brief, useSim, type Ctx } from './helpers';
import { startSim } from '../../kit/sim';
import { generateEd25519 } from '../../../src/ssh/keygen';

let c!: Ctx;
useSim((x) => (c = x));

const publicKey = (comment: string): string => generateEd25519(comment).public;

async function rent(label: string): Promise<number> {
  const offer = await anOffer(c);
  const r = await c.call('PUT', `/api/v0/asks/${offer.id}/`, { image: 'ubuntu', runtype: 'ssh_direct', label });
  assert.equal(r.status, 200, brief(r.json));
  return r.json.new_contract;
}

/** Every invoice row id (the credit purchase and a row per instance and day charged). */
async function invoiceIds(): Promise<number[]> {
  const now = await c.ctl.now();
  const q = encodeURIComponent(JSON.stringify({ when: { gte: now - 30 * 86400, lte: now + 86400 } }));
  const r = await c.call('GET', `/api/v1/invoices/?limit=100&select_filters=${q}`);
  assert.equal(r.status, 200, brief(r.json));
  return (r.json.results as Array<{ id: number }>).map((x) => x.id);
}

describe('ids go on across a reset', () => {
  test('instances: the first one rented after a reset has an id above every one before it', async () => {
    const before = [await rent('a'), await rent('b')];
    await c.ctl.reset();
    const after = await rent('c');
    assert.ok(after > Math.max(...before), `after the reset ${after}, before ${before.join(', ')}`);
    await c.ctl.seed({ instances: 2 });
    const seeded = [...c.sim.state.instances.keys()].filter((id) => id !== after);
    assert.equal(seeded.length, 2);
    for (const id of seeded) assert.ok(id > after, `seeded ${id} after ${after}`);
  });

  test('SSH keys: account keys and keys attached to an instance get ids above every one before the reset', async () => {
    const add = async (line: string) => {
      const r = await c.call('POST', '/api/v0/ssh/', { ssh_key: line });
      assert.equal(r.status, 200, brief(r.json));
      return r.json.key.id as number;
    };
    const line = publicKey('before@reset');
    const before = [await add(line)];
    const id = await rent('keys');
    assert.equal((await c.call('POST', `/api/v0/instances/${id}/ssh/`, { ssh_key: publicKey('attached@reset') })).status, 200);
    before.push(...c.sim.state.instances.get(id)!.sshKeys.map((k) => k.id));
    await c.ctl.reset();
    assert.deepEqual((await c.call('GET', '/api/v0/ssh/')).json, [], 'a fresh account has no keys');
    const after = await add(line); // the same key line, added to the fresh account
    assert.ok(after > Math.max(...before), `after the reset ${after}, before ${before.join(', ')}`);
  });

  test('billing: invoice rows (credit purchase, charges) and price increases get ids above every one before the reset', async () => {
    const inst = await rent('billed');
    await c.ctl.finishBoot(inst);
    await c.ctl.advance(2 * 86400); // charges on more than one day
    const increase = await c.ctl.priceIncrease(inst);
    const before = await invoiceIds();
    assert.ok(before.length >= 3, `the credit purchase and the charged days: ${before.join(', ')}`);
    await c.ctl.reset();
    const again = await rent('billed again');
    await c.ctl.finishBoot(again);
    await c.ctl.advance(86400);
    const after = await invoiceIds();
    assert.ok(after.length >= 2, `the credit purchase and a charged day: ${after.join(', ')}`);
    assert.ok(Math.min(...after) > Math.max(...before), `after the reset ${after.join(', ')}, before ${before.join(', ')}`);
    assert.ok((await c.ctl.priceIncrease(again)) > increase);
  });

  test('otherwise a reset gives fresh state: no instances, keys, increases or charges of before', async () => {
    const inst = await rent('gone');
    await c.call('POST', '/api/v0/ssh/', { ssh_key: publicKey('gone@reset') });
    await c.ctl.priceIncrease(inst);
    await c.ctl.reset();
    assert.equal(c.sim.state.instances.size, 0);
    assert.deepEqual((await c.call('GET', '/api/v0/ssh/')).json, []);
    assert.equal((await c.call('GET', '/api/v0/instances/pending-price-increases/')).json.count, 0);
    assert.equal((await invoiceIds()).length, 1, 'only the credit purchase');
  });

  test('an instance after a reset starts with its own scratch folder, not the files (guard state, GPU load) of one before it', async () => {
    const old = await rent('old');
    await c.ctl.setGpuUtil(old, 90);
    const oldHome = await c.ctl.instanceHome(old);
    assert.ok(existsSync(join(oldHome, 'gpu-util')));
    await c.ctl.reset();
    const fresh = await rent('fresh');
    const home = await c.ctl.instanceHome(fresh);
    assert.notEqual(home, oldHome);
    assert.equal(existsSync(join(home, 'gpu-util')), false, 'the new instance has no GPU load file of an earlier one');
  });
});

test('a reset that seeds running instances ends the SSH connections of the instances before it', async () => {
  // The demo's simulator: a reset seeds new running instances, as many as at the start.
  const sim = await startSim({ testControl: true, bootSeconds: 60, seed: 1, instances: 1 });
  try {
    const [old] = [...sim.state.instances.keys()];
    const port = sim.ssh!.portOf(old!)!;
    const sock = connect(port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()));
    sock.on('error', () => undefined);
    await new Promise<void>((resolve) => sock.once('data', () => resolve())); // the server's banner
    await sim.ctl.reset();
    const [fresh] = [...sim.state.instances.keys()];
    assert.ok(fresh! > old!, `the seeded instance after the reset is new: ${fresh} after ${old}`);
    const timeout = new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 2000).unref());
    assert.equal(await Promise.race([closed.then(() => 'closed' as const), timeout]), 'closed', 'a connection to the old instance does not reach the new one');
    sock.destroy();
  } finally {
    await sim.close();
  }
});
