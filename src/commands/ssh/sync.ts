// Keeps entries following the instance list: rewritten when an instance moves, removed when
// it is destroyed, added for running instances the create flow registered.
import type { Services } from '../../model/services';
import type { Disposable } from '../../model/events';
import { createWriter, recordedSshOptions, sshSettings } from './settings';

export function startSshSync(services: Services, debounceMs = 1000): Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = async () => {
    const store = services.instances as typeof services.instances & { loaded?: boolean };
    // An empty list right after a connection change is "not loaded yet", not "all destroyed".
    if (!sshSettings().manageConfig || !services.connection().signedIn || store.loaded === false) return;
    try {
      await createWriter(services).reconcile(store.instances, recordedSshOptions(services));
    } catch (e) {
      services.log.warn(`ssh: keeping SSH entries in step with instances failed: ${(e as Error).message}`);
    }
  };
  const sub = services.instances.onDidChange(() => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(run);
    }, debounceMs);
  });
  return {
    dispose() {
      if (timer) clearTimeout(timer);
      sub.dispose();
    },
  };
}
