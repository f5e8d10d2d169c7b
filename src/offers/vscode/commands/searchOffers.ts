// "Search Offers": a filters object runs at once (scripts, templates); otherwise a
// multi-step quick pick over every filter of the search table, where Back works.
import { background } from '../../../core/background';
import * as vscode from 'vscode';
import type { Offer, OfferQuery } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { describeError } from '../../../core/describeError';
import { SORT_CHOICES, parseOfferQuery, parseQueryText, withDefaults } from '../../offerQuery';
import { BACK, runSteps, typedChoice, typedReliability, type Step as StepOf, type Typed } from '../../../core/steps';
import { ensureSignedIn } from '../../../core/vscode/signedIn';
import { markWalkthroughStep } from '../../../core/vscode/walkthroughProgress';

type Step = StepOf<OfferQuery>;

const COMMON_GPUS = ['RTX 3090', 'RTX 4090', 'RTX 5090', 'RTX A6000', 'A100 PCIE', 'A100 SXM4', 'H100 PCIE', 'H100 SXM', 'L40S'];

type Item<T> = vscode.QuickPickItem & { value: T };

/**
 * One quick pick step. Text typed and confirmed with Enter is never dropped: a single-choice
 * step takes it when `typed` (default: a choice's exact label) accepts it and otherwise stays
 * open with the reason at the top of the list; a many-choice step with `typed` adds a typed
 * value no listed label contains.
 */
function pick<T>(
  title: string,
  step: number,
  total: number,
  items: Array<Item<T>>,
  opts: { many?: boolean; placeholder?: string; typed?: (text: string) => Typed<T> } = {},
): Promise<T[] | typeof BACK | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<Item<T>>();
    qp.title = title;
    qp.step = step;
    qp.totalSteps = total;
    qp.items = items;
    qp.canSelectMany = opts.many === true;
    qp.placeholder = opts.placeholder;
    qp.ignoreFocusOut = true;
    if (opts.many) qp.selectedItems = items.filter((i) => i.picked);
    else qp.activeItems = items.filter((i) => i.picked).slice(0, 1);
    qp.buttons = step > 1 ? [vscode.QuickInputButtons.Back] : [];
    const parse = opts.typed ?? (opts.many ? undefined : (text: string) => typedChoice<T, Item<T>>(text, items));
    let extra: Item<T> | undefined;
    const listed = (text: string) => items.some((i) => i.label.toLowerCase().includes(text.toLowerCase()));
    const showTyped = (text: string, force = false): void => {
      const t = text.trim();
      const r = parse && t && (force || !listed(t)) ? parse(t) : undefined;
      extra = r
        ? r.ok
          ? { label: t, description: opts.many ? `add "${r.label}"` : `→ ${r.label}`, value: r.value, alwaysShow: true }
          : { label: `$(error) ${t}`, description: r.problem, value: undefined as T, alwaysShow: true }
        : undefined;
      const selected = opts.many ? qp.selectedItems : [];
      qp.items = extra ? [extra, ...items] : items;
      if (opts.many) qp.selectedItems = selected.filter((i) => i !== extra);
      if (extra && !opts.many) qp.activeItems = [extra];
    };
    let done = false;
    const finish = (v: T[] | typeof BACK | undefined): void => {
      if (done) return;
      done = true;
      resolve(v);
      qp.dispose();
    };
    qp.onDidChangeValue((v) => showTyped(v));
    qp.onDidTriggerButton((b) => {
      if (b === vscode.QuickInputButtons.Back) finish(BACK);
    });
    qp.onDidAccept(() => {
      const text = qp.value.trim();
      if (opts.many) {
        const chosen = qp.selectedItems.filter((i) => i !== extra).map((i) => i.value);
        if (!text || listed(text) || !parse) return finish(chosen);
        const r = parse(text);
        if (r.ok) return finish([...chosen, r.value]);
        return showTyped(text, true); // says why, stays open
      }
      const active = qp.activeItems[0];
      if (active && active !== extra) return finish([active.value]);
      if (!text) return active ? finish([active.value]) : finish([]);
      const r = parse!(text);
      if (r.ok) return finish([r.value]);
      showTyped(text, true); // refused: the reason stays on top, nothing is dropped
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}

function input(
  title: string,
  step: number,
  total: number,
  prompt: string,
  value: string,
  validate: (v: string) => string | undefined,
): Promise<string | typeof BACK | undefined> {
  return new Promise((resolve) => {
    const ib = vscode.window.createInputBox();
    ib.title = title;
    ib.step = step;
    ib.totalSteps = total;
    ib.prompt = prompt;
    ib.value = value;
    ib.ignoreFocusOut = true;
    ib.buttons = step > 1 ? [vscode.QuickInputButtons.Back] : [];
    let done = false;
    const finish = (v: string | typeof BACK | undefined): void => {
      if (done) return;
      done = true;
      resolve(v);
      ib.dispose();
    };
    ib.onDidChangeValue((v) => (ib.validationMessage = validate(v)));
    ib.onDidTriggerButton((b) => {
      if (b === vscode.QuickInputButtons.Back) finish(BACK);
    });
    ib.onDidAccept(() => {
      const msg = validate(ib.value);
      ib.validationMessage = msg;
      if (!msg) finish(ib.value.trim());
    });
    ib.onDidHide(() => finish(undefined));
    ib.show();
  });
}

const TITLE = 'GPU Rental: Search Offers';

/** A GPU model typed in the models step (RTX_4090 as the CLI writes it reads as RTX 4090). */
function typedGpuName(text: string): Typed<string> {
  const name = text.replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
  return /^[A-Za-z0-9][A-Za-z0-9 .+-]{0,39}$/.test(name)
    ? { ok: true, value: name, label: name }
    : { ok: false, problem: 'A GPU model name has letters, digits, spaces, ".", "+" or "-" (e.g. RTX 4090).' };
}

function numberInput(
  key: keyof OfferQuery,
  prompt: string,
  opts: { int?: boolean; min: number; max: number; scale?: number },
): Step {
  return async (q, step, total) => {
    const cur = q[key] as number | undefined;
    const shown = cur === undefined ? '' : String(opts.scale ? cur * opts.scale : cur);
    const r = await input(TITLE, step, total, `${prompt} Leave empty for any.`, shown, (v) => {
      if (!v.trim()) return undefined;
      const n = Number(v);
      if (!Number.isFinite(n) || (opts.int && !Number.isInteger(n))) return `Enter ${opts.int ? 'a whole number' : 'a number'}.`;
      if (n < opts.min || n > opts.max) return `Enter a value from ${opts.min} to ${opts.max}.`;
      return undefined;
    });
    if (r === BACK || r === undefined) return r;
    const next: OfferQuery = { ...q };
    if (r === '') delete next[key];
    else (next as Record<string, unknown>)[key] = opts.scale ? Number(r) / opts.scale : Number(r);
    return next;
  };
}

function yesNo(key: 'verified' | 'rentable', question: string, yes: string, no: string): Step {
  return async (q, step, total) => {
    const cur = q[key] ?? true;
    const r = await pick(TITLE, step, total, [
      { label: yes, value: true, picked: cur },
      { label: no, value: false, picked: !cur },
    ], { placeholder: question });
    if (r === BACK || r === undefined) return r;
    return { ...q, [key]: r[0] ?? true };
  };
}

export function offerSearchSteps(gpuNames: string[]): Step[] {
  return [
    async (q, step, total) => {
      const names = [...new Set([...gpuNames, ...COMMON_GPUS, ...(q.gpuNames ?? [])])].sort((a, b) => a.localeCompare(b));
      const chosen = new Set(q.gpuNames ?? []);
      const r = await pick(TITLE, step, total, names.map((n) => ({ label: n, value: n, picked: chosen.has(n) })), {
        many: true,
        placeholder: 'GPU models (none selected = any model; type a model that is not listed to add it)',
        typed: typedGpuName,
      });
      if (r === BACK || r === undefined) return r;
      const next = { ...q };
      if (r.length) next.gpuNames = r;
      else delete next.gpuNames;
      return next;
    },
    async (q, step, total) => {
      const cur = q.numGpus !== undefined ? `${q.numGpus}` : q.minNumGpus !== undefined ? `>=${q.minNumGpus}` : '';
      const r = await input(TITLE, step, total, 'Number of GPUs: exactly N (e.g. 2) or at least N (e.g. >=2). Leave empty for any.', cur, (v) =>
        !v.trim() || /^(>=\s*)?\d{1,2}$/.test(v.trim()) ? undefined : 'Enter a number such as 2, or >=2.',
      );
      if (r === BACK || r === undefined) return r;
      const next = { ...q };
      delete next.numGpus;
      delete next.minNumGpus;
      const m = /^(>=\s*)?(\d+)$/.exec(r);
      if (m?.[2]) {
        if (m[1]) next.minNumGpus = Number(m[2]);
        else next.numGpus = Number(m[2]);
      }
      return next;
    },
    numberInput('minGpuRamGb', 'Minimum GPU RAM in GB (e.g. 24).', { min: 0, max: 10_000 }),
    async (q, step, total) => {
      const levels: Array<[string, number | undefined]> = [['Any reliability', undefined], ['≥ 90%', 0.9], ['≥ 95%', 0.95], ['≥ 98%', 0.98], ['≥ 99%', 0.99]];
      const r = await pick(TITLE, step, total, levels.map(([label, v]) => ({ label, value: v, picked: v === q.minReliability })), {
        placeholder: 'Minimum host reliability (or type one: 0.98, 98%)',
        typed: typedReliability,
      });
      if (r === BACK || r === undefined) return r;
      const next = { ...q };
      if (r[0] === undefined) delete next.minReliability;
      else next.minReliability = r[0];
      return next;
    },
    yesNo('verified', 'Only verified (identity-checked) hosts?', 'Verified hosts only', 'Include unverified hosts'),
    yesNo('rentable', 'Only machines rentable right now?', 'Rentable now only', 'Include machines not rentable now'),
    numberInput('minDirectPorts', 'Minimum number of direct ports (needed for direct SSH/Jupyter; e.g. 1).', { int: true, min: 0, max: 65_535 }),
    async (q, step, total) => {
      const r = await pick(TITLE, step, total, [
        { label: 'On-demand', description: 'fixed price, never interrupted', value: 'on-demand' as const, picked: q.type !== 'bid' },
        { label: 'Interruptible (bid)', description: 'cheaper, may be stopped when outbid', value: 'bid' as const, picked: q.type === 'bid' },
      ], { placeholder: 'Pricing type' });
      if (r === BACK || r === undefined) return r;
      return { ...q, type: r[0] ?? 'on-demand' };
    },
    async (q, step, total) => {
      const cur = JSON.stringify(q.order ?? SORT_CHOICES[0]?.order);
      const r = await pick(TITLE, step, total, SORT_CHOICES.map((s) => ({ label: s.label, value: s.order, picked: JSON.stringify(s.order) === cur })), {
        placeholder: 'Sort order',
      });
      if (r === BACK || r === undefined) return r;
      return { ...q, order: r[0] ?? SORT_CHOICES[0]?.order };
    },
    numberInput('limit', 'Maximum number of offers to show (1-1000; the service returns 64 by default).', { int: true, min: 1, max: 1000 }),
  ];
}

/** gpuRental.searchOffers(search?): a search (object or CLI query string) runs at once; otherwise the filter steps. */
export async function searchOffers(services: Services, filters?: unknown): Promise<Offer[] | undefined> {
  if (!ensureSignedIn(services)) return undefined;
  const offers = services.offers;
  let query: OfferQuery | undefined;
  // A documented object, the service's own filter object or a CLI query string (README).
  if (typeof filters === 'string' || (filters !== undefined && filters !== null && typeof filters === 'object' && !('kind' in filters))) {
    const parsed = parseOfferQuery(filters);
    if (!parsed.ok) {
      vscode.window.showErrorMessage(parsed.message);
      return undefined;
    }
    query = parsed.query;
  } else {
    // The step-by-step form edits the documented keys; a query in the CLI language starts it afresh.
    const current = offers.query;
    query = await runSteps(offerSearchSteps(offers.gpuNames), current.filters ? withDefaults({}) : current);
    if (!query) return undefined;
    query = withDefaults(query);
  }
  return searchAndShow(services, query);
}

/** Runs the search into the Offers view and shows the view; a failure is said and resolves undefined. */
async function searchAndShow(services: Services, query: OfferQuery): Promise<Offer[] | undefined> {
  try {
    const result = await services.offers.search(query);
    markWalkthroughStep('searched', services.log);
    background(vscode.commands.executeCommand('gpuRental.offers.focus'), services.log, 'showing the Offers view');
    return result;
  } catch (e) {
    vscode.window.showErrorMessage(`Could not search offers: ${describeError(e)}`);
    return undefined;
  }
}

/**
 * gpuRental.searchOffersQuery(text?): one input box in the official CLI's query language
 * (`num_gpus>=2 gpu_name=RTX_4090 dph<1.5`); an error names the token and its column as you type.
 * With a string argument it searches without asking.
 */
export async function searchOffersQuery(services: Services, text?: unknown): Promise<Offer[] | undefined> {
  if (!ensureSignedIn(services)) return undefined;
  const typed = typeof text === 'string' ? text : await askQueryText(services);
  if (typed === undefined) return undefined;
  const parsed = parseQueryText(typed);
  if (!parsed.ok) {
    vscode.window.showErrorMessage(`Search Offers: ${parsed.message}`);
    return undefined;
  }
  return searchAndShow(services, parsed.query);
}

/** The input box of Search Offers (Query), starting from the query shown now; undefined on Escape. */
function askQueryText(services: Services): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: 'GPU Rental: Search Offers with a Query',
    prompt: "The CLI's query language: field op value … (e.g. num_gpus>=2 gpu_name=RTX_4090 reliability>0.98 dph<1.5; -o dph sorts by price). Defaults: verified=true rentable=true external=false.",
    placeHolder: 'num_gpus>=2 gpu_name=RTX_4090 dph<1.5',
    value: services.offers.query.text ?? '',
    ignoreFocusOut: true,
    validateInput: (v) => {
      if (!v.trim()) return undefined; // checked on Enter
      const r = parseQueryText(v);
      return r.ok ? undefined : { message: r.message, severity: vscode.InputBoxValidationSeverity.Error };
    },
  });
}
