// Members of an overlay really reach each other: each has its own loopback address as eth0, its
// SSH server listens there too, `ip`/`hostname -I` inside say so, a process binds it and a peer
// connects from its own address (real TCP between distinct 127.x addresses), and OpenMPI's
// mpirun launches orted on two members through the real OpenSSH client.
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEd25519 } from '../../../src/ssh/keygen';
import { startTestSim, type StartedSim } from '../../kit/sim';
import { needs } from '../tools';
import { waitFor } from '../../kit/wait';

let sim: StartedSim;
let dir: string;
let config: string;
const members: Array<{ id: number; addr: string; alias: string }> = [];

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(sim.url + path, {
    method,
    headers: { authorization: 'Bearer sim-api-key', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r.json();
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], timeout = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir }, timeout }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

const ssh = (alias: string, command: string) => run('ssh', ['-F', config, alias, command]);

before(async () => {
  if (needs('ssh')) return;
  sim = await startTestSim({ era: 'today' });
  dir = mkdtempSync(join(tmpdir(), 'gpu-rental-groupnet-'));
  const key = generateEd25519('group-test');
  writeFileSync(join(dir, 'id'), key.private, { mode: 0o600 });
  await call('POST', '/api/v0/ssh/', { ssh_key: key.public });
  const offers = (await call('POST', '/api/v0/bundles/', { cluster_id: { eq: 1201 }, limit: 2 })).offers as Array<{ id: number }>;
  await call('POST', '/api/v0/overlay/', { cluster_id: 1201, name: 'net-test' });
  const lines: string[] = [];
  for (const [rank, o] of offers.entries()) {
    const made = await call('PUT', `/api/v0/asks/${o.id}/`, { image: 'sim/base:1', runtype: 'ssh_direct', env: { '-n net-test': '1' } });
    await sim.ctl.finishBoot(made.new_contract);
    const rec = (await call('GET', `/api/v0/instances/${made.new_contract}/`)).instances;
    const alias = `member-${rank}`;
    members.push({ id: rec.id, addr: sim.state.instances.get(rec.id)!.overlay!.addr, alias });
    lines.push(
      `Host ${alias}`,
      `  HostName ${rec.public_ipaddr}`,
      `  Port ${rec.ports['22/tcp'][0].HostPort}`,
      '  User root',
      `  IdentityFile ${join(dir, 'id')}`,
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      '  BatchMode yes',
      '  StrictHostKeyChecking no',
      '  UserKnownHostsFile /dev/null',
      '  LogLevel ERROR',
      '  ConnectTimeout 20',
    );
  }
  config = join(dir, 'config');
  writeFileSync(config, lines.join('\n') + '\n');
});

after(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('inside a member, eth0 is its own overlay address: ip, hostname -I, and its SSH server listens there', { skip: needs('ssh') }, async () => {
  assert.equal(members.length, 2);
  assert.notEqual(members[0]!.addr, members[1]!.addr);
  for (const m of members) {
    const r = await ssh(m.alias, 'ip -4 -o addr show eth0 | awk \'{print $4}\' | cut -d/ -f1; hostname -I; ip a | grep -c "inet "; hostname');
    assert.equal(r.code, 0, r.stderr);
    const [eth0, all, inets, name] = r.stdout.trim().split('\n');
    assert.equal(eth0, m.addr);
    assert.equal(all!.trim().split(/\s+/)[0], m.addr);
    assert.equal(inets, '3', 'lo, eth0 and eth1');
    assert.equal(name, `C.${m.id}`);
  }
  // a peer's SSH answers on its overlay address (the port the service publishes)
  const port = sim.ssh!.portOf(members[1]!.id)!;
  const r = await run('ssh', ['-F', config, '-o', `HostName=${members[1]!.addr}`, '-p', String(port), members[1]!.alias, 'echo ok']);
  assert.equal(r.stdout.trim(), 'ok', r.stderr);
});

test('a rendezvous between members is real TCP between their distinct addresses', { skip: needs('ssh') }, async () => {
  const [a, b] = members;
  // rank 0 binds its eth0 address; rank 1 connects from its own; rank 0 prints who it heard from
  const server = `node -e 'const s=require("net").createServer((c)=>{console.log(c.remoteAddress);c.end();s.close()});s.listen(0,process.argv[1],()=>console.log(s.address().port))' "$(hostname -i)"`;
  const client = (port: string) =>
    `node -e 'const c=require("net").connect({host:process.argv[1],port:+process.argv[2],localAddress:process.argv[3]},()=>c.end())' ${a!.addr} ${port} "$(hostname -i)"`;
  const { spawn } = await import('node:child_process');
  const child = spawn('ssh', ['-F', config, a!.alias, server], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
  const lines: string[] = [];
  let buf = '';
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      buf += String(d);
      const parts = buf.split('\n');
      buf = parts.pop()!;
      for (const l of parts) {
        lines.push(l);
        if (lines.length === 1) resolve(l);
      }
    });
    child.on('close', () => reject(new Error('rank 0 ended before listening')));
  });
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const r = await ssh(b!.alias, client(port));
  assert.equal(r.code, 0, r.stderr);
  await done;
  assert.equal(lines[1], b!.addr, 'rank 0 heard rank 1 from its own overlay address');
});

test('mpirun launches orted on two members over OpenSSH with a hostfile', { skip: needs('ssh', 'mpirun') }, async () => {
  const hostfile = join(dir, 'hostfile');
  writeFileSync(hostfile, members.map((m) => `${m.alias} slots=1`).join('\n') + '\n');
  const r = await run(
    'mpirun',
    [
      '--allow-run-as-root',
      '--hostfile',
      hostfile,
      '-np',
      '2',
      '--map-by',
      'node',
      '--mca',
      'plm_rsh_agent',
      'ssh',
      '--mca',
      'plm_rsh_args',
      `-F ${config}`,
      'hostname',
    ],
    120_000,
  );
  assert.equal(r.code, 0, `mpirun failed: ${r.stderr}\n${r.stdout}`);
  assert.deepEqual(r.stdout.trim().split('\n').sort(), members.map((m) => `C.${m.id}`).sort());
});

/** What `ssh -W host:port alias` (a forward through the member's SSH server) first reads: the banner there, or nothing. */
async function forwardBanner(alias: string, host: string, port: number): Promise<string> {
  const { spawn } = await import('node:child_process');
  const child = spawn('ssh', ['-F', config, '-W', `${host}:${port}`, alias], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
  return new Promise((resolve) => {
    let got = '';
    child.stdout.on('data', (d: Buffer) => {
      got += String(d);
      if (got.includes('\n')) child.kill();
    });
    child.on('close', () => resolve(got.split('\n')[0]!.trim()));
  });
}

test("a member's forwards reach its peers' overlay addresses, not other addresses", { skip: needs('ssh') }, async () => {
  const peer = members[1]!;
  const port = sim.ssh!.portOf(peer.id)!;
  assert.match(await forwardBanner(members[0]!.alias, peer.addr, port), /^SSH-2\.0-/);
  const stranger = peer.addr.replace(/\.\d+\.\d+$/, '.250.250');
  assert.equal(await forwardBanner(members[0]!.alias, stranger, port), '');
});

test("a member's onstart sees its overlay address on eth0 too", { skip: needs('ssh') }, async () => {
  await sim.ctl.runOnstart(true, {}, { nvidiaSmi: false });
  const [offer] = (await call('POST', '/api/v0/bundles/', { cluster_id: { eq: 1201 }, limit: 1 })).offers as Array<{ id: number }>;
  const onstart = 'ip -4 -o addr show eth0 | awk \'{print $4}\' | cut -d/ -f1 > "$HOME/eth0.part" && mv "$HOME/eth0.part" "$HOME/eth0"';
  const made = await call('PUT', `/api/v0/asks/${offer!.id}/`, { image: 'sim/base:1', runtype: 'ssh_direct', onstart, env: { '-n net-test': '1' } });
  await sim.ctl.finishBoot(made.new_contract);
  const file = join(await sim.ctl.instanceHome(made.new_contract), 'eth0');
  const addr = sim.state.instances.get(made.new_contract)!.overlay!.addr;
  assert.equal(await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').trim(), 30_000, 'the onstart to write eth0'), addr);
  await sim.ctl.runOnstart(false);
});
