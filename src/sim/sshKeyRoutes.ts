// The SSH-key calls of service-today section 5: account keys (/api/v0/ssh/) and the keys
// one instance accepts (/api/v0/instances/{id}/ssh/). Key text is checked with the ssh2
// library's parser, the same one the simulated SSH servers authenticate with.
import { utils } from 'ssh2';
import { fail } from './simError';
import { keyName } from './instances';
import type { SimInstance, SimSshKey, SimState } from './state';

interface Reply {
  status: number;
  body: unknown;
}

/** One OpenSSH public key line, or a 400 that says what is wrong with it. */
export function checkKeyLine(raw: unknown): string {
  if (raw === undefined || raw === null || raw === '') throw fail(400, 'no_ssh_key', 'ssh_key is required: send one OpenSSH public key line.');
  if (typeof raw !== 'string') throw fail(400, 'invalid_args', 'ssh_key must be a string.');
  const line = raw.trim();
  if (/PRIVATE KEY/.test(line)) throw fail(400, 'invalid_ssh_key', 'ssh_key is a private key. Send the public key (the .pub file) instead.');
  const parsed = /^\S+ \S+( [^\r\n]*)?$/.test(line) ? utils.parseKey(line) : new Error('not one line');
  if (parsed instanceof Error || Array.isArray(parsed) || parsed.isPrivateKey()) {
    throw fail(400, 'invalid_ssh_key', 'ssh_key is not an OpenSSH public key line (like "ssh-ed25519 AAAA… comment").');
  }
  return line;
}

/**
 * The published reference types `created_at`/`deleted_at` as date-time strings; nothing shows the
 * live service sending numbers, so the today era follows the reference (the seed era keeps its
 * epoch seconds). The client accepts both.
 */
function when(t: number | null, state: SimState): number | string | null {
  return t === null || state.era !== 'today' ? t : new Date(t * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

function render(k: SimSshKey, state: SimState): Record<string, unknown> {
  return { id: k.id, user_id: state.user.id, public_key: k.public_key, created_at: when(k.created_at, state), deleted_at: when(k.deleted_at, state) };
}

const liveKeys = (state: SimState) => state.sshKeys.filter((k) => k.deleted_at === null);

function accountKey(state: SimState, raw: string): SimSshKey {
  const id = Number(raw);
  const k = liveKeys(state).find((x) => x.id === id);
  if (!k) throw fail(400, 'no_ssh_key', `There is no SSH key ${raw.slice(0, 20)} on this account. Refresh the key list.`);
  return k;
}

function instanceOf(state: SimState, raw: string): SimInstance {
  const inst = state.instances.get(Number(raw));
  if (!inst) throw fail(404, 'no_such_instance', `Instance ${raw.slice(0, 20)} does not exist (it may have been destroyed).`);
  return inst;
}

/** The reply for an SSH-key path, or undefined when the path is not one of them. */
export function handleSshKeys(state: SimState, method: string, path: string, json: Record<string, unknown>, readOnly: boolean): Reply | undefined {
  const write = () => {
    if (readOnly) throw fail(403, 'permission_denied', 'This API key is read-only. Use a key with write permission to change SSH keys.');
  };
  let m: RegExpExecArray | null;
  if (path === '/api/v0/ssh') {
    if (method === 'GET') return { status: 200, body: liveKeys(state).map((k) => render(k, state)) };
    if (method === 'POST') {
      write();
      const line = checkKeyLine(json.ssh_key);
      const parsed = utils.parseKey(line) as ReturnType<typeof utils.parseKey> & { getPublicSSH(): Buffer };
      // The same key twice is one key: answer the existing record.
      const same = liveKeys(state).find((k) => (utils.parseKey(k.public_key) as { getPublicSSH(): Buffer }).getPublicSSH().equals(parsed.getPublicSSH()));
      const k = same ?? { id: state.ids.sshKey++, public_key: line, created_at: Math.floor(state.now()), deleted_at: null };
      if (!same) state.sshKeys.push(k);
      return { status: 200, body: { success: true, key: render(k, state) } };
    }
    throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}.`);
  }
  if ((m = /^\/api\/v0\/ssh\/([^/]+)$/.exec(path))) {
    write();
    const k = accountKey(state, m[1]!);
    if (method === 'PUT') {
      k.public_key = checkKeyLine(json.ssh_key);
      return { status: 200, body: { success: true, key: render(k, state) } };
    }
    if (method === 'DELETE') {
      k.deleted_at = Math.floor(state.now());
      return { status: 200, body: { success: true } };
    }
    throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}.`);
  }
  if ((m = /^\/api\/v0\/instances\/([^/]+)\/ssh$/.exec(path))) {
    const inst = instanceOf(state, m[1]!);
    if (method === 'GET') {
      const rows = inst.sshKeys.map((k) => ({ id: k.id, name: k.name, public_key: k.public_key }));
      return { status: 200, body: { success: true, ssh_keys: JSON.stringify(rows) } };
    }
    if (method === 'POST') {
      write();
      const line = checkKeyLine(json.ssh_key);
      const blob = (utils.parseKey(line) as { getPublicSSH(): Buffer }).getPublicSSH();
      if (!inst.sshKeys.some((k) => (utils.parseKey(k.public_key) as { getPublicSSH(): Buffer }).getPublicSSH().equals(blob))) {
        const account = liveKeys(state).find((k) => (utils.parseKey(k.public_key) as { getPublicSSH(): Buffer }).getPublicSSH().equals(blob));
        const id = account?.id ?? state.ids.sshKey++;
        inst.sshKeys.push({ id, name: keyName(line, id), public_key: line });
      }
      return { status: 200, body: { success: true, msg: `SSH key attached to instance ${inst.id}.` } };
    }
    throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}.`);
  }
  if ((m = /^\/api\/v0\/instances\/([^/]+)\/ssh\/([^/]+)$/.exec(path))) {
    if (method !== 'DELETE') throw fail(405, 'method_not_allowed', `${method} is not supported on ${path}.`);
    write();
    const inst = instanceOf(state, m[1]!);
    const i = inst.sshKeys.findIndex((k) => k.id === Number(m![2]));
    if (i < 0) throw fail(404, 'no_such_ssh_key', `Instance ${inst.id} has no SSH key ${m[2]!.slice(0, 20)}.`);
    inst.sshKeys.splice(i, 1);
    return { status: 200, body: { success: true, msg: `SSH key detached from instance ${inst.id}.` } };
  }
  return undefined;
}
