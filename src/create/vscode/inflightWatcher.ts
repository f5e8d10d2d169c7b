// Watches the in-flight rentals in the background (after a reload or restart, after a kept or
// unknown outcome) until each settles; a rental the flow had stopped waiting for that appears is
// adopted and announced: "arrived late".
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { readInflight, realClock, resumeInflight } from '../createFlow';
import { sshEntryWriterFor } from '../../ssh/vscode/sshHost';
import { background } from '../../core/background';
import { groupOwnsRental } from '../../core/groupIndex';

/** One watcher per in-flight rental (by id, or label while its id is unknown), however often this is called. */
const watching = new Set<number | string>();

export async function keepWatching(
  services: Pick<Services, 'api' | 'connection' | 'globalState' | 'instances' | 'log' | 'onDidChangeConnection' | 'track'>,
  ref?: number | string,
): Promise<void> {
  // A member of a group being rented, or given up, is its group's (src/groups/groupResume.ts, groupLate.ts).
  const keys = readInflight(services.globalState)
    .filter((r) => !groupOwnsRental(services.globalState, r.label))
    .map((r) => r.instanceId ?? r.label)
    .filter((x) => (ref === undefined || x === ref) && !watching.has(x));
  if (!keys.length) return;
  keys.forEach((x) => watching.add(x));
  try {
    const api = await services.api();
    const ac = new AbortController();
    services.track({ dispose: () => ac.abort() });
    await resumeInflight(
      { api, log: services.log, clock: realClock, ssh: sshEntryWriterFor(services), state: services.globalState, instances: services.instances },
      {
        only: keys,
        signal: ac.signal,
        onFailed: (r, message) =>
          background(
            vscode.window.showWarningMessage(message, vscode.l10n.t('Destroy')).then((c) => {
              if (c && r.instanceId !== undefined)
                background(vscode.commands.executeCommand('gpuRental.destroyInstance', r.instanceId), services.log, 'opening Destroy');
            }),
            services.log,
            'the Destroy offer',
          ),
        onAdopted: (r, inst, alias) =>
          background(
            vscode.window
              .showWarningMessage(
                vscode.l10n.t(
                  'Instance {0} ("{1}") arrived late: the service showed it only now. It is billing and is in the Instances view{2}. Destroy it there if you rented another machine instead.',
                  inst.id,
                  r.label,
                  alias ? `, with its SSH entry ${alias}` : '',
                ),
                vscode.l10n.t('Show Instances'),
              )
              .then((c) => {
                if (c) background(vscode.commands.executeCommand('gpuRental.instances.focus'), services.log, 'showing the Instances view');
              }),
            services.log,
            'the arrived-late notice',
          ),
      },
    );
  } catch (e) {
    services.log.warn(`templates: watching in-flight creations failed: ${e instanceof Error ? e.message : 'unknown error'}`);
  } finally {
    keys.forEach((x) => watching.delete(x));
  }
}
