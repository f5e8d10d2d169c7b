// Reads the settings the SSH writer needs. `remote.SSH.configFile` is only ever read.
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import type { Services } from '../../model/services';
import { SshConfigWriter, SSH_OPTIONS_STATE_KEY, type SshOptions, type SshOptionsByInstance } from '../../ssh';

export interface SshSettings {
  identityFile?: string;
  manageConfig: boolean;
  userConfigFile?: string;
}

export function sshSettings(): SshSettings {
  const own = vscode.workspace.getConfiguration('gpuRental.ssh');
  const remote = vscode.workspace.getConfiguration('remote.SSH');
  const identityFile = own.get<string>('identityFile')?.trim();
  const userConfigFile = remote.get<string>('configFile')?.trim();
  return {
    manageConfig: own.get<boolean>('manageConfig', true),
    ...(identityFile ? { identityFile } : {}),
    ...(userConfigFile ? { userConfigFile } : {}),
  };
}

/** Entries are tagged with the service they belong to, so reconcile never touches another account's. */
export function originOf(services: Services): string {
  const c = services.connection();
  if (c.demo) return 'demo';
  try {
    return new URL(c.baseUrl).host || 'default';
  } catch {
    return 'default';
  }
}

/**
 * The home whose ~/.ssh is managed. GPU_RENTAL_SSH_HOME lets integration tests (which share
 * the extension host process) point the writer at a temporary directory.
 */
export function sshHome(): string {
  return process.env.GPU_RENTAL_SSH_HOME || homedir();
}

/** A writer configured from the current settings (settings may change between calls). */
export function createWriter(services: Services): SshConfigWriter {
  const s = sshSettings();
  return new SshConfigWriter({
    home: sshHome(),
    origin: originOf(services),
    log: services.log,
    ...(s.identityFile ? { identityFile: s.identityFile } : {}),
    ...(s.userConfigFile ? { userConfigFile: s.userConfigFile } : {}),
  });
}

export function recordedSshOptions(services: Services): SshOptionsByInstance {
  return services.globalState.get<SshOptionsByInstance>(SSH_OPTIONS_STATE_KEY) ?? {};
}

export function sshOptionsFor(services: Services, id: number): SshOptions {
  return recordedSshOptions(services)[String(id)] ?? {};
}
