// The simulator's SSH servers at the transport level: a listener exactly where the record
// says, only while the instance runs, loopback only, and none at all with ssh off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { utils } from 'ssh2';
import { parseArgs, simConfig } from '../../../src/sim';
import { SimState } from '../../../src/sim/state';
import { seedInstances } from '../../../src/sim/instanceCreate';
import { startSshServers } from '../../../src/sim/sshServer';
import { startSim } from '../../kit/sim';
import { generateEd25519 } from '../../../src/ssh/keygen';

/** 'open' when the server answers with an SSH banner, 'closed' when it hangs up, 'refused'. */
function probe(port: number): Promise<'open' | 'closed' | 'refused'> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let buf = '';
    s.on('data', (d) => {
      buf += String(d);
      if (buf.startsWith('SSH-2.0-')) {
        s.destroy();
        resolve('open');
      }
    });
    s.on('close', () => resolve(buf.startsWith('SSH-2.0-') ? 'open' : 'closed'));
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? 'refused' : 'closed'));
  });
}

async function show(url: string, id: number): Promise<any> {
  const r = await fetch(`${url}/api/v0/instances/${id}/`, { headers: { authorization: 'Bearer sim-api-key' } });
  return ((await r.json()) as { instances: unknown }).instances;
}

async function create(url: string, offerId: number, runtype: string): Promise<number> {
  const r = await fetch(`${url}/api/v0/asks/${offerId}/`, {
    method: 'PUT',
    headers: { authorization: 'Bearer sim-api-key', 'content-type': 'application/json' },
    body: JSON.stringify({ image: 'sim/base:1', runtype }),
  });
  return ((await r.json()) as { new_contract: number }).new_contract;
}

test('a listener on exactly the reported address, for each placement; served only while running', async () => {
  const sim = await startSim({ testControl: true, bootSeconds: 60, seed: 3, rateLimitPerSecond: 1000 });
  const ctl = sim.ctl;
  try {
    const offers = sim.state.offers.filter((o) => o.rentable && o.verified && !o.rented && !o.taken);
    const cases: Array<[string, (rec: any) => number]> = [
      ['ssh_proxy', (rec) => rec.ssh_port],
      ['jupyter_proxy', (rec) => rec.ssh_port + 1],
      ['ssh_direct', (rec) => Number(rec.ports['22/tcp'][0].HostPort)],
    ];
    for (const [i, [runtype, addressOf]] of cases.entries()) {
      const id = await create(sim.url, offers[i]!.id, runtype);
      const loading = await show(sim.url, id);
      assert.equal(loading.ssh_host, '127.0.0.1');
      const listenPort = sim.ssh!.portOf(id)!;
      assert.ok(listenPort > 0);
      // bound from creation (the port is really ours) but not served while it boots
      assert.equal(await probe(listenPort), 'closed');
      await ctl.finishBoot(id);
      const rec = await show(sim.url, id);
      assert.equal(rec.actual_status, 'running');
      assert.equal(rec.public_ipaddr, '127.0.0.1');
      assert.equal(addressOf(rec), listenPort, runtype);
      assert.equal(await probe(listenPort), 'open');
      await fetch(`${sim.url}/api/v0/instances/${id}/`, {
        method: 'PUT',
        headers: { authorization: 'Bearer sim-api-key', 'content-type': 'application/json' },
        body: '{"state":"stopped"}',
      });
      assert.equal(await probe(listenPort), 'refused', 'a stopped instance stops listening');
    }
    // args instances have no SSH
    const args = await create(sim.url, offers[3]!.id, 'args');
    await ctl.finishBoot(args);
    await show(sim.url, args);
    assert.equal(sim.ssh!.portOf(args), undefined);
  } finally {
    await sim.close();
  }
});

test('ssh off (--no-ssh / ssh: false): no listeners, the seed addresses', async () => {
  assert.equal(parseArgs(['--no-ssh']).ssh, false);
  const sim = await startSim({ seed: 3, instances: 2, ssh: false });
  try {
    assert.equal(sim.ssh, undefined);
    const id = [...sim.state.instances.keys()][0]!;
    const rec = await show(sim.url, id);
    assert.notEqual(rec.public_ipaddr, '127.0.0.1');
  } finally {
    await sim.close();
  }
});

test('an instance whose listener cannot be opened leaves the others served, is logged, and is tried again on the next sync', async () => {
  const state = new SimState(simConfig({ seed: 3 }));
  seedInstances(state, 3);
  const ids = [...state.instances.values()].filter((i) => i.intended === 'running' && !i.runtype.includes('args')).map((i) => i.id);
  assert.ok(ids.length >= 2, 'seeded running instances');
  const broken = ids[0]!;
  let fail = true;
  const lines: string[] = [];
  const ssh = startSshServers(state, {
    log: (l) => lines.push(l),
    hostKey: (id) => {
      if (id === broken && fail) throw new Error('host key store unavailable');
      return generateEd25519('host').private;
    },
  });
  try {
    await ssh.sync();
    for (const id of ids.slice(1)) {
      const port = ssh.portOf(id);
      assert.ok(port !== undefined && port > 0, `instance ${id} is served although ${broken} failed: ${lines.join('\n')}`);
      assert.equal(await probe(port), 'open');
    }
    assert.equal(ssh.portOf(broken), undefined);
    assert.match(ssh.problemOf(broken) ?? '', /host key store unavailable/);
    assert.ok(
      lines.some((l) => l.includes(`instance ${broken}`) && l.includes('host key store unavailable')),
      lines.join('\n'),
    );
    fail = false;
    await ssh.sync();
    assert.ok((ssh.portOf(broken) ?? 0) > 0, 'the next sync opens it');
    assert.equal(ssh.problemOf(broken), undefined);
  } finally {
    await ssh.close();
  }
});

/** A key pair as ssh2's ed25519 generator makes about one in 256: the SSH server cannot load its private key. */
function cutPair(): { private: string; public: string } {
  for (let i = 0; i < 20_000; i++) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (utils.parseKey(pair.private) instanceof Error) return pair;
  }
  throw new Error('ssh2 made no cut key pair in 20000 attempts (mscdex/ssh2#1513 fixed?)');
}

test('a cut host key from the SSH library is never used: the instance gets its listener and its record reports that port, not the made-up 40000', async () => {
  const cut = cutPair();
  const generate = utils.generateKeyPairSync;
  let calls = 0;
  // The library's next pair is a cut one (as one in 256 is), then whole ones again.
  utils.generateKeyPairSync = ((...a: Parameters<typeof generate>) => (++calls === 1 ? cut : generate(...a))) as typeof generate;
  const sim = await startSim({ testControl: true, bootSeconds: 60, seed: 1, instances: 1 });
  try {
    const [id] = [...sim.state.instances.keys()];
    assert.ok(calls >= 1, 'the host key came from the library');
    const port = sim.ssh!.portOf(id!);
    assert.ok(port !== undefined && port > 0, `no listener: ${sim.ssh!.problemOf(id!) ?? ''}`);
    const rec = await show(sim.url, id!);
    assert.equal(rec.actual_status, 'running');
    assert.equal(Number(rec.ports['22/tcp'][0].HostPort), port);
    assert.equal(await probe(port), 'open');
  } finally {
    utils.generateKeyPairSync = generate;
    await sim.close();
  }
});

test('a host key the SSH server cannot load is made again at the next sync, not kept', async () => {
  const state = new SimState(simConfig({ seed: 3 }));
  seedInstances(state, 1);
  const [id] = [...state.instances.keys()];
  const cut = cutPair().private;
  const asked: number[] = [];
  const ssh = startSshServers(state, { hostKey: (i) => (asked.push(i), asked.length === 1 ? cut : generateEd25519('host').private) });
  try {
    await ssh.sync();
    assert.equal(ssh.portOf(id!), undefined);
    assert.match(ssh.problemOf(id!) ?? '', /privateKey/);
    await ssh.sync();
    assert.deepEqual(asked, [id, id], 'a second key was asked for');
    assert.ok((ssh.portOf(id!) ?? 0) > 0, `the next sync opens it: ${ssh.problemOf(id!) ?? ''}`);
  } finally {
    await ssh.close();
  }
});
