// What a screen reader says for a tree row (TreeItem.accessibilityInformation), for the rows
// that are a label and a description: the parts that are there, joined with ", ", then what
// activating the row does. Instance and offer rows say more (src/instances/rowSpeech.ts, src/offers/offerRow.ts).
import * as l10n from '@vscode/l10n';
import { formatRate } from './rates';

/** Joins the parts that are there with ", ". */
export function spoken(parts: ReadonlyArray<string | undefined | false>): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join(', ');
}

/** A row's label and description, with what activating it does. */
export function rowSpeech(label: string, description?: string, action?: string): string {
  return spoken([label, description, action]);
}

/** "$0.40/h" → "$0.40 per hour". */
export function spokenRate(perHour: number): string {
  return l10n.t('{0} per hour', formatRate(perHour).replace(/\/h$/, ''));
}
