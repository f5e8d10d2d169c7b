// The idle guard of a group treats the group as one job: real watchdogs (under dash and busybox
// sh) against the simulator, each member on its own loopback address (Linux routes all of 127/8
// here) with the group's files as the group's launch writes them. A member serves its verdict with
// python3's http.server and reads its peers' with curl; it stops only when every member has been
// idle long enough, or a peer has been silent that long. Waits are for state changes, not for time.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { groupEnv, hostfile } from '../../../src/groups/groupLaunch';
import type { WatchdogState } from '../../../src/guard/watchdogState';
import { SHELLS, guardSim, runGuard, until, type GuardRun, type RunOptions } from './harness';
import { needs, type Tool } from '../tools';
import { holdSshdLock } from './sessions';

const gsim = guardSim();
// Not while another run's scenario matrix holds a session to its fake sshd: these guards would count it.
holdSshdLock('shared');
const { instance, intended } = gsim;

/** A port no one listens on, on any address (a wildcard listener would keep a member's server from binding). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '0.0.0.0', res));
  const port = (s.address() as AddressInfo).port;
  await new Promise((res) => s.close(res));
  return port;
}

let net = 0;
/** The members' addresses for one test: 127.<pid-based>.<n>.<rank + 1>, apart from other tests and runs. */
function addresses(n: number): string[] {
  net++;
  const a = 100 + (process.pid % 150);
  return Array.from({ length: n }, (_, rank) => `127.${a}.${net}.${rank + 1}`);
}

/** GET a member's verdict from this process (undefined: no answer). */
function verdict(addr: string, port: number): Promise<string | undefined> {
  return new Promise((res) => {
    const q = request({ host: addr, port, path: '/v', timeout: 2000 }, (r) => {
      let body = '';
      r.on('data', (d: Buffer) => (body += d.toString()));
      r.on('end', () => res(r.statusCode === 200 ? body : undefined));
    });
    q.on('error', () => res(undefined));
    q.on('timeout', () => q.destroy());
    q.end();
  });
}

/** The group's files in a member's home, as prepareGroup writes them on a real member. */
function writeGroupFiles(home: string, rank: number, addrs: readonly string[]): void {
  const g = { name: 'job', count: addrs.length, gpusPerNode: 1, masterPort: 29500 };
  mkdirSync(join(home, '.gpu-rental'), { recursive: true });
  writeFileSync(join(home, '.gpu-rental', 'group.env'), groupEnv(g, rank, addrs[0]!));
  writeFileSync(join(home, '.gpu-rental', 'hostfile'), hostfile(addrs, 1));
}

/** Held by the group for at least its idle limit by its own clock: alone, it would have acted already. */
const heldLongEnough = (s: WatchdogState | undefined, why: string) =>
  !!s && s.busyReason === `group: ${why}` && s.idleSince !== null && s.updatedAt - s.idleSince >= s.idleLimitSeconds + 1 && s.actAt === null;

for (const shell of SHELLS) {
  describe(`a group's idle guard under ${shell.name}`, { concurrency: true, skip: needs(shell.argv[0] as Tool, 'python3 http.server') }, () => {
    /** Members (ranks in order) with their group files; each watches with `o[rank]`. */
    async function members(o: Array<Omit<RunOptions, 'shell'>>, idleSeconds = 2) {
      const addrs = addresses(o.length);
      const port = await freePort();
      const insts = await Promise.all(o.map(() => instance()));
      const runs: GuardRun[] = o.map((x, rank) => {
        const r = runGuard(gsim.c, insts[rank]!, {
          shell: shell.argv,
          ...x,
          env: { GPU_GUARD_PEER_PORT: String(port), GPU_GUARD_IDLE_SECONDS: String(idleSeconds), ...x.env },
        });
        writeGroupFiles(r.dir, rank, addrs);
        return r;
      });
      return { addrs, port, insts, runs, stop: () => Promise.all(runs.map((r) => r.stop())) };
    }

    test('A and B idle while C is busy: none stops, A and B say C keeps them; C idle too: all three stop', async () => {
      const m = await members([{ gpu: 50 }, { gpu: 50 }, { gpu: 50 }]);
      const [a, b, c] = m.runs as [GuardRun, GuardRun, GuardRun];
      try {
        // Every member serves its verdict before any goes idle (no silence counts against one).
        for (const addr of m.addrs) await until(`${addr} serves its verdict`, async () => (await verdict(addr, m.port)) === 'busy\n');
        a.setGpu(0);
        b.setGpu(0);
        await until("A idle for its limit, held by C's busy", () => heldLongEnough(a.state(), 'rank 2 busy'));
        await until("B idle for its limit, held by C's busy", () => heldLongEnough(b.state(), 'rank 2 busy'));
        for (const i of m.insts) assert.equal(intended(i.id), 'running');
        assert.deepEqual(
          m.runs.map((r) => r.state()!.group),
          ['rank 0 of 3', 'rank 1 of 3', 'rank 2 of 3'],
        );
        assert.equal(c.state()!.busyReason, 'GPU at 50 %');
        assert.match(a.log(), /group: rank 0 of 3, at 127\.[\d.]+[\s\S]*group: rank 2 busy/);
        c.setGpu(0);
        for (const r of m.runs) assert.equal(await r.exited, 0);
        for (const i of m.insts) assert.equal(intended(i.id), 'stopped');
        for (const r of m.runs) assert.match(r.log(), /group idle: every member idle for 2 s\n.* stop now \(idle\)/);
        // Each verdict's server ended with its guard.
        for (const addr of m.addrs) await until(`${addr} serves no more`, async () => (await verdict(addr, m.port)) === undefined);
      } finally {
        await m.stop();
      }
    });

    test('a peer that goes silent (its guard killed) holds the group only until it has been silent for the idle limit', async () => {
      const m = await members([{ gpu: 50 }, { gpu: 50 }], 5);
      const [a, b] = m.runs as [GuardRun, GuardRun];
      try {
        for (const addr of m.addrs) await until(`${addr} serves its verdict`, async () => (await verdict(addr, m.port)) === 'busy\n');
        a.setGpu(0);
        await until("A idle for its limit, held by B's busy", () => heldLongEnough(a.state(), 'rank 1 busy'), 30_000);
        b.child.kill('SIGKILL');
        await b.exited;
        await until('A holds while B is silent', () => heldLongEnough(a.state(), 'rank 1 not answering'), 30_000);
        assert.equal(intended(m.insts[0]!.id), 'running');
        assert.equal(await a.exited, 0);
        assert.equal(intended(m.insts[0]!.id), 'stopped');
        assert.equal(intended(m.insts[1]!.id), 'running', 'B is not stopped by A: each member stops only itself');
        assert.match(a.log(), /group: rank 1 busy[\s\S]*group: rank 1 not answering[\s\S]*stop now \(idle\)/);
      } finally {
        await m.stop();
      }
    });

    test("a peer's answer other than busy or idle <time> counts as busy; the plain idle word lets it stop", async () => {
      const [self, peer] = addresses(2) as [string, string];
      const port = await freePort();
      let answer = 'idle 1; rm -rf "$HOME"';
      const fake: Server = createServer((_q, r) => r.end(`${answer}\n`));
      await new Promise<void>((res) => fake.listen(port, peer, res));
      const inst = await instance();
      const a = runGuard(gsim.c, inst, { shell: shell.argv, env: { GPU_GUARD_PEER_PORT: String(port) } });
      writeGroupFiles(a.dir, 0, [self, peer]);
      try {
        await until('A held by the answer it does not understand', () => heldLongEnough(a.state(), 'rank 1 busy (answer not understood)'));
        assert.equal(intended(inst.id), 'running');
        answer = 'idle 1';
        assert.equal(await a.exited, 0);
        assert.equal(intended(inst.id), 'stopped');
      } finally {
        await a.stop();
        await new Promise((res) => fake.close(res));
      }
    });

    test('group files written again (new addresses after a start) are read again: it serves on its new address only', async () => {
      const inst = await instance();
      const port = await freePort();
      const a = runGuard(gsim.c, inst, { shell: shell.argv, gpu: 50, env: { GPU_GUARD_PEER_PORT: String(port) } });
      const [before, after] = [addresses(2), addresses(2)] as [string[], string[]];
      try {
        writeGroupFiles(a.dir, 0, before);
        await until('it serves on its first address', async () => (await verdict(before[0]!, port)) === 'busy\n');
        writeGroupFiles(a.dir, 1, after);
        await until('it serves on its new address', async () => (await verdict(after[1]!, port)) === 'busy\n');
        await until('and no more on the old one', async () => (await verdict(before[0]!, port)) === undefined);
        assert.equal(a.state()!.group, 'rank 1 of 2');
      } finally {
        await a.stop();
      }
    });

    test('without python3 a member says it cannot share its state, and watches alone', async () => {
      const inst = await instance();
      const a = runGuard(gsim.c, inst, { shell: shell.argv, without: ['python3'], gpu: 50 });
      writeGroupFiles(a.dir, 1, addresses(2));
      try {
        await until('its state says so', () => a.state()?.group === 'cannot share its state (no python3)');
        a.setGpu(0);
        assert.equal(await a.exited, 0);
        assert.equal(intended(inst.id), 'stopped');
        assert.doesNotMatch(a.log(), /group idle/);
      } finally {
        await a.stop();
      }
    });
  });
}
