// What the create flow tells the user when a new instance ends stopped.
import type { Instance } from '../api/types';
import { formatRate, storageRate } from '../core/rates';
import * as l10n from '@vscode/l10n';

/**
 * What to tell the user when a creation ends stopped: asked for by the template, or left stopped
 * by the service (its machine could not be scheduled now, or an interruptible bid was outbid),
 * always with what the stopped instance still costs (its disk bills until it is destroyed).
 */
export function stoppedCreationMessage(i: Instance, templateName: string, asked: 'running' | 'stopped'): string {
  const storage = formatRate(storageRate(i));
  if (asked === 'stopped')
    return l10n.t(
      'Instance {0} from "{1}" was created stopped, as the template asks; its disk bills {2} while it is stopped. Start it from the Instances view when you need it, or destroy it.',
      i.id,
      templateName,
      storage,
    );
  return l10n.t(
    'Instance {0} from "{1}" was created, but the service left it stopped (its machine cannot be scheduled now, or the bid was outbid). It is not running, and its disk bills {2} until you destroy it. Start it later from the Instances view, or destroy it and try another offer.',
    i.id,
    templateName,
    storage,
  );
}
