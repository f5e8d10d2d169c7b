// The SSH layer's contract. Plain TypeScript: the create flow, the commands and the tests
// all code against these shapes.
import type { Instance } from '../api/types';

/** Per-instance SSH choices, usually from the workspace template the instance was created from. */
export interface SshOptions {
  /** Remote user; default `root`. */
  user?: string;
  /** Private key; overrides the `gpuRental.ssh.identityFile` setting for this instance. */
  identityFile?: string;
  /** Folder to open on connect (absolute path on the instance). */
  remoteFolder?: string;
  localForwards?: Array<{ localPort: number; remoteHost?: string; remotePort: number }>;
  /** More names of this host: a group member's `gpu-<group>-<rank>`, and rank 0's `gpu-<group>` (src/groups/). */
  groupAliases?: string[];
}

/**
 * The port the create flow calls once an instance exists: writes (or rewrites) the instance's
 * Remote-SSH host entry and returns its alias (`ssh <alias>`).
 */
export interface SshEntryWriter {
  writeEntry(instance: Instance, ssh: SshOptions): Promise<string>;
}

export type SshOptionsByInstance = Record<string, SshOptions>;
