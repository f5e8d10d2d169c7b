// Ready to launch: every member of a running group learns the group. Rank 0's overlay address is
// read ON the machine (its eth0, as the service's guide does by hand with `ip a`), never guessed,
// and so is every member's (the members' hostfile lists them). Each member then gets a file its
// shells load with MASTER_ADDR, MASTER_PORT, NODE_RANK, NNODES, WORLD_SIZE, GPUS_PER_NODE and
// NCCL_SOCKET_IFNAME=eth0, and a hostfile in the "host slots=N" form DeepSpeed and OpenMPI read.
// Everything written is built from checked values only (an IPv4 address, whole numbers, the
// group's own name): no text from the service or the machine reaches a shell unchecked.
import type { Instance } from '../api/types';
import type { Clock } from '../create/flowTypes';
import type { GroupRecord } from './groupRecords';

/** Runs one command on a host of the managed SSH config (sshShell.ts: the real OpenSSH client). */
export interface RemoteShell {
  run(alias: string, command: string): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Where a member keeps what it knows of the group ($HOME/.gpu-rental/). */
export const GROUP_ENV_FILE = '$HOME/.gpu-rental/group.env';
export const GROUP_HOSTFILE = '$HOME/.gpu-rental/hostfile';
/** The line each member's ~/.bashrc and ~/.profile get once, so every shell knows its rank. */
const SOURCE_LINE = `[ -f "${GROUP_ENV_FILE}" ] && . "${GROUP_ENV_FILE}"`;
export const READ_ETH0 = 'ip -4 -o addr show eth0';
/** Attempts to reach a member that just started (its SSH server may come up a little after "running"). */
const READ_ATTEMPTS = 6;
const RETRY_MS = 2_000;

export class GroupLaunchError extends Error {
  override name = 'GroupLaunchError';
}

/** The first IPv4 address of `ip -4 -o addr show eth0`'s output, or undefined. */
export function eth0Address(output: string): string | undefined {
  const m = /\binet (\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\//.exec(output);
  if (!m) return undefined;
  const parts = m.slice(1, 5).map(Number);
  return parts.every((n) => n <= 255) ? parts.join('.') : undefined;
}

/** The member's environment file. */
export function groupEnv(g: Pick<GroupRecord, 'name' | 'count' | 'gpusPerNode' | 'masterPort'>, rank: number, masterAddr: string): string {
  const gpus = Math.max(1, g.gpusPerNode);
  return [
    `# Written by GPU Rental: this machine is rank ${rank} of ${g.count} in group ${g.name}.`,
    `export GPU_RENTAL_GROUP=${g.name}`,
    `export MASTER_ADDR=${masterAddr}`,
    `export MASTER_PORT=${g.masterPort}`,
    `export NODE_RANK=${rank}`,
    `export NNODES=${g.count}`,
    `export GPUS_PER_NODE=${gpus}`,
    `export WORLD_SIZE=${g.count * gpus}`,
    'export NCCL_SOCKET_IFNAME=eth0',
    'export GLOO_SOCKET_IFNAME=eth0',
    `export GPU_RENTAL_HOSTFILE="${GROUP_HOSTFILE}"`,
    '',
  ].join('\n');
}

/** "host slots=N" per line, rank order: DeepSpeed's and OpenMPI's hostfile. */
export function hostfile(hosts: readonly string[], slots: number): string {
  return hosts.map((h) => `${h} slots=${Math.max(1, slots)}`).join('\n') + '\n';
}

/** A shell command that writes `text` to `path` (its folder made first); `text` holds no single quote. */
function writeFileCommand(path: string, text: string): string {
  if (text.includes("'")) throw new GroupLaunchError('refusing to write a file with a quote in it');
  const lines = text.replace(/\n$/, '').split('\n');
  return `mkdir -p "$HOME/.gpu-rental" && printf '%s\\n' ${lines.map((l) => `'${l}'`).join(' ')} > "${path}"`;
}

/** Writes the member's environment and hostfile, and makes its shells load the environment. */
export function memberSetupCommand(g: GroupRecord, rank: number, masterAddr: string, memberAddrs: readonly string[]): string {
  return [
    writeFileCommand(GROUP_ENV_FILE, groupEnv(g, rank, masterAddr)),
    writeFileCommand(GROUP_HOSTFILE, hostfile(memberAddrs, g.gpusPerNode)),
    `for f in "$HOME/.bashrc" "$HOME/.profile"; do grep -qs 'gpu-rental/group.env' "$f" || printf '%s\\n' '${SOURCE_LINE}' >> "$f"; done`,
    'echo ok',
  ].join(' && ');
}

async function readAddress(shell: RemoteShell, clock: Clock, alias: string): Promise<string> {
  let last = '';
  for (let i = 0; i < READ_ATTEMPTS; i++) {
    if (i) await clock.sleep(RETRY_MS);
    const r = await shell.run(alias, READ_ETH0);
    const addr = r.code === 0 ? eth0Address(r.stdout) : undefined;
    if (addr) return addr;
    last = r.code === 0 ? 'it has no IPv4 address on eth0 (is it on the overlay network?)' : `ssh ended with ${r.code}`;
  }
  throw new GroupLaunchError(`could not read the overlay address of ${alias}: ${last}`);
}

/** Reads every member's eth0 address and writes each member's files; the group with the addresses. */
export async function prepareGroup(shell: RemoteShell, clock: Clock, g: GroupRecord, _instances: readonly Instance[]): Promise<GroupRecord> {
  const aliases = g.members.map((m) => `gpu-${g.name}-${m.rank}`);
  const addrs = await Promise.all(aliases.map((a) => readAddress(shell, clock, a)));
  if (new Set(addrs).size !== addrs.length) throw new GroupLaunchError(`two members report the same overlay address (${addrs.join(', ')})`);
  await Promise.all(
    aliases.map(async (alias, rank) => {
      const r = await shell.run(alias, memberSetupCommand(g, rank, addrs[0]!, addrs));
      if (r.code !== 0 || !r.stdout.includes('ok')) throw new GroupLaunchError(`could not write the group's files on ${alias} (ssh ended with ${r.code})`);
    }),
  );
  return { ...g, members: g.members.map((m, i) => ({ ...m, overlayAddress: addrs[i]! })) };
}
