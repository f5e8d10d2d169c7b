// Two-step consent where no editor can ask the user: a spending call without a quote id returns
// a quote (what it costs, what guards it) and sends nothing; the call that repeats the quote id
// does it, exactly once. The quote is taken synchronously, before the first await, so a repeated
// or concurrent confirm can never send a second request: it gets the first one's result.
import type { ToolResult } from './toolTypes';
import { ToolError } from './toolTypes';
import * as l10n from '@vscode/l10n';

/** How long a quote may be confirmed: prices move, and the consent was for this price. */
export const QUOTE_TTL_MS = 5 * 60_000;

export type QuoteKind = 'rent' | 'start' | 'price';

export interface Quote<P = unknown> {
  id: string;
  kind: QuoteKind;
  /** What is to be done, as quoted (the offer, price, template, guard…). */
  plan: P;
  /** The consent text shown for it. */
  summary: string;
  expiresAt: number;
}

interface Entry {
  quote: Quote;
  /** Set when it was confirmed: every later confirm answers with this. */
  result?: Promise<ToolResult>;
}

export class QuoteStore {
  private readonly quotes = new Map<string, Entry>();

  constructor(
    private readonly now: () => number,
    private readonly random: () => number = Math.random,
    private readonly ttlMs = QUOTE_TTL_MS,
  ) {}

  put<P>(kind: QuoteKind, plan: P, summary: string): Quote<P> {
    this.prune();
    let id = '';
    do id = `q-${Array.from({ length: 10 }, () => Math.floor(this.random() * 36).toString(36)).join('')}`;
    while (this.quotes.has(id));
    const quote: Quote<P> = { id, kind, plan, summary, expiresAt: this.now() + this.ttlMs };
    this.quotes.set(id, { quote });
    return quote;
  }

  /**
   * Runs `act` for the quote `id` at most once. A confirm of a quote already confirmed (at the
   * same time or later) gets the first confirm's result, marked as a repeat; nothing is sent again.
   */
  confirm<P>(id: string, kind: QuoteKind, act: (quote: Quote<P>) => Promise<ToolResult>): Promise<ToolResult> {
    const e = this.quotes.get(id);
    if (!e || e.quote.kind !== kind)
      return Promise.reject(
        new ToolError(
          l10n.t(
            'Quote "{0}" is not a {1} quote this server gave (or it was forgotten after a restart). Nothing was done. Call the tool again without quote_id for a new quote.',
            clip(id),
            kind,
          ),
        ),
      );
    if (e.result) return e.result.then((r) => ({ ...r, text: l10n.t('Quote {0} was already confirmed; nothing was sent again. {1}', id, r.text) }));
    if (this.now() > e.quote.expiresAt) {
      this.quotes.delete(id);
      return Promise.reject(
        new ToolError(
          l10n.t(
            'Quote {0} expired (quotes are valid {1} minutes: prices move). Nothing was done. Call the tool again without quote_id for a new quote.',
            id,
            Math.round(this.ttlMs / 60_000),
          ),
        ),
      );
    }
    // Taken before the first await: a concurrent confirm sees `result` and waits for it.
    e.result = Promise.resolve().then(() => act(e.quote as Quote<P>));
    // The answer is kept (a repeat gets it), and so is the record that it was used, until it would have expired.
    return e.result;
  }

  /** Forgets quotes past their time (used ones too: a repeat after that is refused, never sent). */
  private prune(): void {
    const now = this.now();
    for (const [id, e] of this.quotes) if (now > e.quote.expiresAt + this.ttlMs) this.quotes.delete(id);
  }
}

/** An id as the caller gave it, bounded and plain, for a message. */
function clip(id: string): string {
  const s = id.replace(/[^\w.-]/g, '?');
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}
