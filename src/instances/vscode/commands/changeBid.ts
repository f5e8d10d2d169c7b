// Change Bid… of an interruptible instance: shows the current bid and the machine's minimum,
// validates, sends. An outbid instance runs again once its bid reaches the minimum.
import * as vscode from 'vscode';
import { CommandFailure } from '../../../core/vscode/commandFailure';
import type { Instance } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { currentBid, parseBid } from '../../bid';
import { instanceName, isInterruptible, isOutbid } from '../../../core/instanceWords';
import { formatRate } from '../../../core/rates';
import { guardedInstanceAction, resolveInstance, runInstanceAction } from '../../../core/vscode/instanceTarget';
import { unattendedAllowed } from '../../../core/unattended';
import { consentOf } from '../../../core/vscode/consent';

/**
 * gpuRental.changeBid(node | id | { id, price }): with a price (scripts), sends it without asking
 * when the user allows unattended calls (gpuRental.scripting.allowUnattended); else it asks.
 */
export async function changeBid(
  services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'settings' | 'showLog'>,
  arg?: unknown,
): Promise<boolean> {
  const inst = await resolveInstance(services, arg, isInterruptible, {
    verb: 'Change Bid',
    none: 'No interruptible instance: only instances rented with a bid have one.',
  });
  if (!inst) return false;
  if (!isInterruptible(inst)) {
    throw new CommandFailure(vscode.l10n.t('"{0}" is an on-demand instance: it has a fixed price and no bid.', instanceName(inst)));
  }
  return guardedInstanceAction(services, inst, 'Change Bid', () => askAndChangeBid(services, inst, arg));
}

async function askAndChangeBid(services: Pick<Services, 'api' | 'instances' | 'log' | 'settings' | 'showLog'>, inst: Instance, arg: unknown): Promise<boolean> {
  const fresh = await (await services.api()).showInstance(inst.id).catch(() => inst);
  const min = typeof fresh.min_bid === 'number' && fresh.min_bid > 0 ? fresh.min_bid : undefined;
  const cur = currentBid(fresh);
  const offered = typeof arg === 'object' && arg !== null ? (arg as { price?: unknown }).price : undefined;
  const given = offered !== undefined && unattendedAllowed(consentOf(services), 'Change Bid') ? offered : undefined;
  let price: number;
  if (given !== undefined) {
    const r = parseBid(String(given), min);
    if (!r.ok) {
      throw new CommandFailure(vscode.l10n.t('Change Bid: {0}', r.message));
    }
    price = r.price;
  } else {
    const facts = [cur !== undefined ? `current bid ${formatRate(cur, 3)}` : undefined, min !== undefined ? `minimum now ${formatRate(min, 3)}` : undefined]
      .filter(Boolean)
      .join(' · ');
    const text = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: Change Bid of "{0}"', instanceName(fresh)),
      prompt: vscode.l10n.t(
        '{0}New bid in $/h ({1}). A higher bid keeps the machine longer.',
        isOutbid(fresh) ? 'Outbid: the service stopped this instance because someone bid more. ' : '',
        facts || 'no price information',
      ),
      value: String(min !== undefined && (cur === undefined || cur < min) ? min : (cur ?? '')),
      placeHolder: vscode.l10n.t('e.g. 0.35'),
      validateInput: (v) => {
        const r = parseBid(v, min);
        return r.ok ? undefined : r.message;
      },
    });
    if (text === undefined) return false;
    const r = parseBid(text, min);
    if (!r.ok) return false;
    price = r.price;
  }
  return runInstanceAction(services, fresh, 'Changing bid…', 'Could not change the bid of', async () => (await services.api()).changeBid(fresh.id, price));
}
