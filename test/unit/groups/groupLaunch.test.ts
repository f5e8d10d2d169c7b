// A group of 3, rented on the simulator through the extension's own flow (runGroupFlow with the
// real client, the real SSH config writer and prepareGroup over the real OpenSSH client), then
// launched with a real launcher: OpenMPI's mpirun with the written hostfile over the written SSH
// entries (each member prints NODE_RANK and MASTER_ADDR), and a Python standard-library TCP
// all-gather across the members (rank 0 listens on MASTER_ADDR:MASTER_PORT, every rank sends its
// rank and address, rank 0 answers everyone with all of them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSshFixture, type SshFixture } from '../../kit/sshFixture';
import { MemoryState } from '../../kit/state';
import { memoryLog } from '../create/flowHarness';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { createApiClient } from '../../../src/api/client';
import { runGroupFlow } from '../../../src/groups/groupFlow';
import { GROUP_ENV_FILE, hostfile, prepareGroup } from '../../../src/groups/groupLaunch';
import { sshShell } from '../../../src/groups/sshShell';
import type { Template } from '../../../src/create/templateSchema';
import type { Clock } from '../../../src/create/flowTypes';
import { needs } from '../tools';

let f: SshFixture;
useSshFixture({ era: 'today', bootSeconds: 30, invisibleSeconds: 0 }, 'gpu-rental-group-', 'group-test', async (x) => {
  f = x;
  await f.api.addSshKey(f.key.line);
});

const template: Template = {
  name: 'DDP run',
  count: 3,
  offer: { gpuNames: ['RTX 4090'], numGpus: 1 },
  instance: { image: 'pytorch/pytorch:latest', runtype: 'ssh_direct', disk: 10 },
};

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(cmd, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: f.home }, timeout: 90_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    ),
  );
}

const ALL_GATHER = `
import os, socket, sys, time, json
rank, n = int(os.environ["NODE_RANK"]), int(os.environ["NNODES"])
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
me = socket.gethostbyname(socket.gethostname()) if False else os.popen("ip -4 -o addr show eth0").read().split()[3].split("/")[0]
if rank == 0:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((addr, port)); s.listen(n)
    got, conns = {0: me}, []
    while len(conns) < n - 1:
        c, peer = s.accept(); r, a = c.recv(256).decode().split(); got[int(r)] = a
        assert a == peer[0], (a, peer)
        conns.append(c)
    out = json.dumps([got[i] for i in range(n)]).encode()
    for c in conns: c.sendall(out); c.close()
    print(out.decode())
else:
    deadline = time.time() + 60
    while True:
        try:
            c = socket.socket(); c.bind((me, 0)); c.connect((addr, port)); break
        except OSError:
            c.close()
            if time.time() > deadline: raise
            time.sleep(0.2)
    c.sendall(f"{rank} {me}".encode()); print(c.recv(4096).decode())
`;

test(
  "a group of 3 from the extension's flow runs mpirun over its SSH entries and a TCP all-gather across its members",
  { skip: needs('ssh', 'mpirun', 'python3') },
  async () => {
    const writer = new SshConfigWriter({ home: f.home, origin: '127.0.0.1', identityFile: f.key.privatePath });
    const shell = sshShell({ configPath: writer.configPath, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: f.home } });
    const clock: Clock = { now: () => Date.now(), sleep: async (ms) => void (await f.ctl.advance(ms / 1000)) };
    const log = memoryLog();
    // The simulator runs without rate limits here: the service's pacing (a create per 4.5 s) is the pacing tests' business.
    const api = createApiClient({ baseUrl: f.sim.url, credentials: { token: () => 'sim-api-key' }, log, pacing: 'off' });
    const state = new MemoryState();
    const result = await runGroupFlow(
      {
        api,
        log,
        state,
        clock,
        ssh: writer,
        progress: () => undefined,
        prompts: { pickCluster: async (c) => c[0], confirmGroup: async () => true },
        prepare: (g, inst) => prepareGroup(shell, clock, g, inst),
      },
      { template, templatePath: '.gpu/ddp.json', pollIntervalMs: 2000, confirm: false },
    );
    assert.equal(result.outcome, 'ready', `${result.message}\n${log.lines.join('\n')}`);
    if (result.outcome !== 'ready') return;
    const g = result.group;
    assert.equal(g.members.length, 3);
    const addrs = g.members.map((m) => m.overlayAddress!);
    // Rank 0's address is what the machine says its eth0 is (the simulator's own record of it).
    assert.equal(addrs[0], f.sim.state.instances.get(g.members[0]!.instanceId!)!.overlay!.addr);
    assert.equal(new Set(addrs).size, 3);

    // The hostfile in the workspace names the SSH entries; mpirun launches one rank per member.
    const hosts = join(f.home, 'hostfile');
    writeFileSync(
      hosts,
      hostfile(
        g.members.map((m) => `gpu-${g.name}-${m.rank}`),
        1,
      ),
    );
    const mpi = await run('mpirun', [
      '--allow-run-as-root',
      '--hostfile',
      hosts,
      '-np',
      '3',
      '--map-by',
      'node',
      '--mca',
      'plm_rsh_agent',
      'ssh',
      '--mca',
      'plm_rsh_args',
      `-F ${writer.configPath}`,
      'sh',
      '-c',
      `. "${GROUP_ENV_FILE}"; echo "$NODE_RANK $MASTER_ADDR $NNODES $NCCL_SOCKET_IFNAME"`,
    ]);
    assert.equal(mpi.code, 0, `mpirun failed: ${mpi.stderr}\n${mpi.stdout}`);
    assert.deepEqual(
      mpi.stdout.trim().split('\n').sort(),
      [0, 1, 2].map((r) => `${r} ${addrs[0]} 3 eth0`),
    );

    // The all-gather: every member runs it at once through its own SSH entry, with its environment.
    const outs = await Promise.all(
      g.members.map((m) => shell.run(`gpu-${g.name}-${m.rank}`, `. "${GROUP_ENV_FILE}"; python3 -c '${ALL_GATHER.replace(/'/g, `'"'"'`)}'`)),
    );
    for (const o of outs) {
      assert.equal(o.code, 0, o.stderr);
      assert.deepEqual(JSON.parse(o.stdout.trim()), addrs);
    }
    // The SSH entry gpu-<group> is rank 0.
    const r0 = await shell.run(`gpu-${g.name}`, `. "${GROUP_ENV_FILE}"; echo $NODE_RANK`);
    assert.equal(r0.stdout.trim(), '0', r0.stderr);
  },
);
