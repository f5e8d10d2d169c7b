// SSH keys: the account's keys (/api/v0/ssh/) and the keys attached to one instance
// (/api/v0/instances/{id}/ssh/). Only an OpenSSH public key line is ever sent.
import type { CallOptions, ServiceApi } from './types';
import { positiveId, type Pipeline, type SchemaOf } from './pipeline';
import { INSTANCES_PATH as I } from './instanceListApi';

const K = '/api/v0/ssh/';

type SshKeyCalls = Pick<ServiceApi, 'listSshKeys' | 'addSshKey' | 'updateSshKey' | 'deleteSshKey' | 'attachSshKey' | 'listInstanceSshKeys' | 'detachSshKey'>;

/** The key calls: one OpenSSH public key line (a .pub file's text, trimmed) checked, then sent as ssh_key. */
async function sendKey<T>(
  p: Pipeline,
  name: string,
  method: 'POST' | 'PUT',
  path: string,
  key: unknown,
  extra: object,
  schema: SchemaOf<T>,
  o: CallOptions | undefined,
): Promise<T> {
  const body = { ...extra, ssh_key: typeof key === 'string' ? key.trim() : key };
  await p.validate(name, (s) => s.sshKeyRequestSchema, body);
  return p.send({ method, path, body, schema, emptyOk: true }, o);
}

export function sshKeysApi(p: Pipeline): SshKeyCalls {
  const { send } = p;
  return {
    async listSshKeys(o) {
      return send({ method: 'GET', path: K, schema: (s) => s.accountSshKeyListSchema }, o);
    },
    addSshKey: (publicKey, o) => sendKey(p, 'addSshKey', 'POST', K, publicKey, {}, (s) => s.accountSshKeyResultSchema, o),
    async updateSshKey(id, publicKey, o) {
      positiveId(id, 'updateSshKey');
      return sendKey(p, 'updateSshKey', 'PUT', `${K}${id}/`, publicKey, { id }, (s) => s.accountSshKeyResultSchema, o);
    },
    async deleteSshKey(id, o) {
      positiveId(id, 'deleteSshKey');
      return send({ method: 'DELETE', path: `${K}${id}/`, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
    async attachSshKey(instanceId, publicKey, o) {
      positiveId(instanceId, 'attachSshKey');
      return sendKey(p, 'attachSshKey', 'POST', `${I}${instanceId}/ssh/`, publicKey, {}, (s) => s.simpleResultSchema, o);
    },
    async listInstanceSshKeys(instanceId, o) {
      positiveId(instanceId, 'listInstanceSshKeys');
      return send({ method: 'GET', path: `${I}${instanceId}/ssh/`, schema: (s) => s.instanceSshKeyListSchema }, o);
    },
    async detachSshKey(instanceId, keyId, o) {
      positiveId(instanceId, 'detachSshKey');
      positiveId(keyId, 'detachSshKey');
      return send({ method: 'DELETE', path: `${I}${instanceId}/ssh/${keyId}/`, schema: (s) => s.simpleResultSchema, emptyOk: true }, o);
    },
  };
}
