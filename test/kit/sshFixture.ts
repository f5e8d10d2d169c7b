// For unit tests that use the real OpenSSH client: the simulator (its instances run real SSH
// servers), a client of it, and a temporary HOME (never the user's ~/.ssh) with GPU Rental's
// SSH config writer and a fresh key pair.
import { perFile } from './perFile';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningSim, SimOptions } from '../../src/sim';
import { SimControl } from '../../src/sim/control';
import { closeApiTransport, createApiClient } from '../../src/api/client';
import type { ServiceApi } from '../../src/api/types';
import { SshConfigWriter } from '../../src/ssh/sshConfigWriter';
import { createKeyPair, type LocalKey } from '../../src/ssh/keys';
import { silentLogger } from './log';
import { startSim } from './sim';

export interface SshFixture {
  sim: RunningSim;
  ctl: SimControl;
  api: ServiceApi;
  home: string;
  writer: SshConfigWriter;
  key: LocalKey;
  /** Stops the simulator and the client's connections and removes the HOME. */
  close(): Promise<void>;
}

/** `sim` is added to a test-control simulator without rate limits; the HOME's folder name starts with `homePrefix`. */
export async function startSshFixture(sim: SimOptions, homePrefix: string, keyComment: string): Promise<SshFixture> {
  const running = await startSim({ testControl: true, rateLimitPerSecond: 1000, ...sim });
  const home = mkdtempSync(join(tmpdir(), homePrefix));
  const close = async () => {
    await running.close();
    await closeApiTransport();
    rmSync(home, { recursive: true, force: true });
  };
  try {
    return {
      sim: running,
      ctl: new SimControl(running.url),
      api: createApiClient({ baseUrl: running.url, credentials: { token: () => 'sim-api-key' }, log: silentLogger, retry: { retries: 0 } }),
      home,
      writer: new SshConfigWriter({ home, origin: '127.0.0.1' }),
      key: await createKeyPair({ home, comment: keyComment }),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** One fixture for a test file: started before its tests (`onStarted` gets it then), closed after them. */
export function useSshFixture(sim: SimOptions, homePrefix: string, keyComment: string, onStarted: (f: SshFixture) => void | Promise<void>): void {
  perFile('the SSH fixture', () => startSshFixture(sim, homePrefix, keyComment), { onStarted });
}
