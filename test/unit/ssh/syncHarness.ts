// Entry sync over a temporary HOME: an instance store the test drives, the real startEntrySync
// and SshConfigWriter, and the "recorded options" (globalState gpuRental.sshOptions) as a value
// the test sets. The sync never fires by itself: flush() drives it.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Instance } from '../../../src/api/types';
import { Emitter } from '../../../src/core/events';
import { SshConfigWriter, type SshConfigWriterOptions } from '../../../src/ssh/sshConfigWriter';
import { startEntrySync } from '../../../src/ssh/entrySync';
import { type SshOptionsByInstance } from '../../../src/ssh/sshTypes';
import { silentLogger } from '../../kit/log';

/** `writer` options besides the home (the setting's identityFile, the origin): as createWriter passes them. */
export function syncHarness(o: Omit<SshConfigWriterOptions, 'home'> = {}, home = mkdtempSync(join(tmpdir(), 'gpu-ssh-sync-'))) {
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  const changed = new Emitter<readonly Instance[]>();
  const store = { instances: [] as Instance[], onDidChange: changed.event, loaded: true };
  const state = { enabled: true, writers: 0, registered: {} as SshOptionsByInstance };
  const sync = startEntrySync({
    instances: store,
    enabled: () => state.enabled,
    writer: () => (state.writers++, new SshConfigWriter({ home, ...o })),
    registered: () => state.registered,
    log: silentLogger,
    debounceMs: 60_000,
  });
  const set = (list: Instance[]) => {
    store.instances = list;
    changed.fire(list);
  };
  return {
    home,
    store,
    state,
    sync,
    set,
    writer: new SshConfigWriter({ home, ...o }),
    done: () => (sync.dispose(), rmSync(home, { recursive: true, force: true })),
  };
}
