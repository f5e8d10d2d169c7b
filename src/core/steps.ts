// What a prompt makes of text the user typed and confirmed with Enter: a listed choice, a typed
// reliability, or a sentence saying why not (Search Offers' filter editors).
import * as l10n from '@vscode/l10n';
/**
 * What a single-choice step does with text the user typed and confirmed with Enter: a value the
 * step's parser accepts, or a sentence saying why not. A choice step never turns typed text
 * into "no answer" (typing 0.98 at "Minimum host reliability" used to become "Any").
 */
export type Typed<T> = { ok: true; value: T; label: string } | { ok: false; problem: string };

/** The choice whose label is the typed text (case and spacing ignored), if any. */
export function choiceNamed<C extends { label: string }>(text: string, choices: readonly C[]): C | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
  const t = norm(text);
  return t ? choices.find((c) => norm(c.label) === t) : undefined;
}

/** A typed answer for a step whose only answers are its listed choices. */
export function typedChoice<T, C extends { label: string; value: T }>(text: string, choices: readonly C[]): Typed<T> {
  const c = choiceNamed(text, choices);
  if (c) return { ok: true, value: c.value, label: c.label };
  return { ok: false, problem: l10n.t('"{0}" is not one of the choices. Pick one from the list (clear the box to see them all).', text.trim().slice(0, 40)) };
}

/** A typed minimum reliability: 0.98, 98, 98% or >=98 (a fraction from 0 to 1, or a percent). */
export function typedReliability(text: string): Typed<number> {
  const m = /^(?:>=?|≥)?\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)$/.exec(text.trim());
  const n = m ? Number(m[1]) : NaN;
  if (!m || !Number.isFinite(n))
    return { ok: false, problem: l10n.t('Type a minimum reliability as a fraction (0.98) or a percent (98 or 98%), or pick one from the list.') };
  const fraction = m[2] || n > 1 ? n / 100 : n;
  if (fraction < 0 || fraction > 1) return { ok: false, problem: l10n.t('A reliability is from 0 to 100%. Type e.g. 0.98 or 98%.') };
  const v = Math.round(fraction * 10_000) / 10_000;
  return { ok: true, value: v, label: `≥ ${Math.round(v * 1000) / 10}%` };
}
