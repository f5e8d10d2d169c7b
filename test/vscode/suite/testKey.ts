// A key pair in the test's temporary SSH home, registered on the simulator's account through
// the scripting interface (gpuRental.addSshKey), so the key check before renting and
// connecting finds it and asks nothing.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../../../src/core/vscode/services';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { PICKED_SSH_KEY_STATE_KEY, SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';
import { INFLIGHT_STATE_KEY } from '../../../src/create/createFlow';

import { forget, waitFor } from './framework';

export async function registerTestKey(home: string): Promise<{ id: number; privatePath: string }> {
  const privatePath = join(home, '.ssh', 'id_ed25519');
  if (!existsSync(privatePath)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'gpu-rental-vscode-test', '-f', privatePath]);
  const record = await vscode.commands.executeCommand<{ id: number } | undefined>('gpuRental.addSshKey', { publicKeyPath: `${privatePath}.pub` });
  assert.ok(record && record.id > 0, 'gpuRental.addSshKey resolved no key record');
  return { id: record.id, privatePath };
}

/** The end of a test that used a temporary SSH home: key choice forgotten, signed out, home removed. */
export async function signOutAndDropSshHome(services: Services, home: string | undefined): Promise<void> {
  await forget(services.globalState, PICKED_SSH_KEY_STATE_KEY);
  await services.secrets.delete('apiKey');
  await waitFor(() => !services.connection().signedIn, 5000, 'sign-out');
  delete process.env.GPU_RENTAL_SSH_HOME;
  if (home) rmSync(home, { recursive: true, force: true });
}

/**
 * The end of a test that rented: the instances whose labels match `labels` destroyed, in-flight
 * records and SSH options forgotten, then signOutAndDropSshHome.
 */
export async function dropRentalsAndSshHome(services: Services, labels: RegExp, home: string | undefined): Promise<void> {
  try {
    const api = await services.api();
    for (const i of (await api.listInstances()).instances) if (labels.test(i.label ?? '')) await api.destroyInstance(i.id);
  } catch {
    // signed out already
  }
  await forget(services.globalState, INFLIGHT_STATE_KEY);
  await forget(services.globalState, SSH_OPTIONS_STATE_KEY);
  await signOutAndDropSshHome(services, home);
}

/**
 * A temporary SSH home (GPU_RENTAL_SSH_HOME points at it; never the user's ~/.ssh) with a ~/.ssh
 * folder, and its user config: `userConfig`, or by default one that includes GPU Rental's file.
 */
export function tempSshHome(prefix: string, userConfig?: string): { home: string; w: SshConfigWriter } {
  const home = mkdtempSync(join(tmpdir(), prefix));
  process.env.GPU_RENTAL_SSH_HOME = home;
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  const w = new SshConfigWriter({ home });
  writeFileSync(w.userConfigPath, userConfig ?? `${w.includeLine()}\n`);
  return { home, w };
}

/** Signs in with the simulator key (stored as the secret, as Set API Key does) and waits until the extension is signed in. */
export async function signInWithSimKey(services: Services): Promise<void> {
  await services.secrets.store('apiKey', 'sim-api-key');
  await waitFor(() => services.connection().signedIn, 5000, 'sign-in');
}

/**
 * A temporary SSH home (tempSshHome: its user config includes GPU Rental's file unless `userConfig`
 * says otherwise), signed in with the simulator key, with a key pair of that home registered on the
 * account (unless `register` is false).
 */
export async function signedInWithSshHome(
  services: Services,
  prefix: string,
  { register = true, userConfig }: { register?: boolean; userConfig?: string } = {},
): Promise<{ home: string; w: SshConfigWriter; key?: { id: number; privatePath: string } }> {
  const { home, w } = tempSshHome(prefix, userConfig);
  await signInWithSimKey(services);
  return { home, w, ...(register ? { key: await registerTestKey(home) } : {}) };
}
