// A template's ssh section with a key of its own, and the proof (by `ssh -G`) that an instance's
// managed entry carries exactly that: the template's key and no other, IdentitiesOnly yes, its
// user and its forwards, on the entry and on a direct entry's `-proxy` route.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Instance } from '../../../src/api/types';
import { sshAddress } from '../../../src/ssh/address';
import { type SshOptions } from '../../../src/ssh/sshTypes';
import { sshGAll } from './sshG';

/** As the create flow records it: the key path as the user wrote it (under the HOME). */
export const templateSsh: SshOptions = {
  user: 'ubuntu',
  identityFile: '~/.ssh/template_ed25519',
  remoteFolder: '/workspace',
  localForwards: [
    { localPort: 8888, remotePort: 8888 },
    { localPort: 6006, remoteHost: '127.0.0.1', remotePort: 16006 },
  ],
};

/** Other keys of the same HOME: the setting's and the one the key check picked. */
export const otherKey = (home: string, which: 'setting' | 'picked') => join(home, '.ssh', `${which}_ed25519`);

function assertHost(configPath: string, alias: string, home: string, at: { host: string; port: number }, why: string): void {
  const g = sshGAll(configPath, alias);
  const one = (k: string) => g.get(k)?.join(' | ');
  assert.equal(one('hostname'), at.host, `${why}: hostname of ${alias}`);
  assert.equal(one('port'), String(at.port), `${why}: port of ${alias}`);
  assert.equal(one('identityfile'), join(home, '.ssh', 'template_ed25519'), `${why}: ${alias} offers the template's key and no other`);
  assert.equal(one('identitiesonly'), 'yes', `${why}: IdentitiesOnly of ${alias}`);
  assert.equal(one('user'), 'ubuntu', `${why}: the template's user on ${alias}`);
  assert.deepEqual(g.get('localforward'), ['8888 [localhost]:8888', '6006 [127.0.0.1]:16006'], `${why}: the template's forwards on ${alias}`);
}

/** The entry `alias` (and its `-proxy` route, for a direct address) resolves to `inst`'s address with the template's options. */
export function assertTemplateEntry(configPath: string, alias: string, home: string, inst: Instance, why: string): void {
  const addr = sshAddress(inst);
  assert.ok(addr, `${why}: instance ${inst.id} has an SSH address`);
  assertHost(configPath, alias, home, addr, why);
  if (addr.fallback) assertHost(configPath, `${alias}-proxy`, home, addr.fallback, `${why} (proxy route)`);
}
