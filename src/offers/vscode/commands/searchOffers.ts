// "Search Offers": a filters object or a CLI query string runs at once (scripts, templates);
// otherwise one quick pick lists every filter with its current value and "Search" on top.
// Picking a filter edits it (a sub-pick or an input box with the current value filled in) and
// comes back to the list; Escape on the list cancels. The start values are the last search's.
import { background } from '../../../core/background';
import * as vscode from 'vscode';
import { CommandFailure, failedTo } from '../../../core/vscode/commandFailure';
import type { Offer, OfferQuery } from '../../../api/types';
import type { Services } from '../../../core/vscode/services';
import { parseOfferQuery, parseQueryText, withDefaults } from '../../offerQuery';
import { SORT_CHOICES } from '../../offerQueryText';
import { typedReliability, type Typed } from '../../../core/steps';
import { ensureSignedIn } from '../../../core/vscode/signedIn';
import { markWalkthroughStep } from '../../../core/vscode/walkthroughProgress';
import { inputValue, pickValues, type Item } from '../searchPrompts';

const COMMON_GPUS = ['RTX 3090', 'RTX 4090', 'RTX 5090', 'RTX A6000', 'A100 PCIE', 'A100 SXM4', 'H100 PCIE', 'H100 SXM', 'L40S'];
const TITLE = 'GPU Rental: Search Offers';
const ANY = 'any';

/** One row of the filter list: its current value, and the editor that changes it (undefined: unchanged). */
interface Filter {
  label: string;
  shown(q: OfferQuery): string;
  edit(q: OfferQuery, title: string): Promise<OfferQuery | undefined>;
}

/** A GPU model typed in the models pick (RTX_4090 as the CLI writes it reads as RTX 4090). */
function typedGpuName(text: string): Typed<string> {
  const name = text.replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
  return /^[A-Za-z0-9][A-Za-z0-9 .+-]{0,39}$/.test(name)
    ? { ok: true, value: name, label: name }
    : { ok: false, problem: 'A GPU model name has letters, digits, spaces, ".", "+" or "-" (e.g. RTX 4090).' };
}

type NumberKey = 'minGpuRamGb' | 'minDirectPorts' | 'maxDphTotal' | 'limit';

function numberFilter(
  label: string,
  key: NumberKey,
  o: { prompt: string; example: string; unit?: (n: number) => string; int?: boolean; min: number; max: number; none?: string },
): Filter {
  return {
    label,
    shown: (q) => (q[key] === undefined ? (o.none ?? ANY) : (o.unit?.(q[key]) ?? String(q[key]))),
    edit: async (q, title) => {
      const r = await inputValue(title, {
        prompt: vscode.l10n.t('{0} Leave empty for {1}.', o.prompt, o.none ?? ANY),
        placeholder: `${o.none ?? ANY} (e.g. ${o.example})`,
        value: q[key] === undefined ? '' : String(q[key]),
        validate: (v) => {
          if (!v.trim()) return undefined;
          const n = Number(v);
          if (!Number.isFinite(n) || (o.int && !Number.isInteger(n))) return `Enter ${o.int ? 'a whole number' : 'a number'}.`;
          if (n < o.min || n > o.max) return `Enter a value from ${o.min} to ${o.max}.`;
          return undefined;
        },
      });
      if (r === undefined) return undefined;
      const next: OfferQuery = { ...q };
      if (r === '') delete next[key];
      else next[key] = Number(r);
      return next;
    },
  };
}

function yesNoFilter(label: string, key: 'verified' | 'rentable', yes: string, no: string): Filter {
  return {
    label,
    shown: (q) => ((q[key] ?? true) ? yes : no),
    edit: async (q, title) => {
      const cur = q[key] ?? true;
      const r = await pickValues(
        title,
        [
          { label: yes, value: true, picked: cur },
          { label: no, value: false, picked: !cur },
        ],
        { placeholder: label },
      );
      return r === undefined ? undefined : { ...q, [key]: r[0] ?? cur };
    },
  };
}

/** A single-choice filter over fixed choices (the current one preselected). */
function choiceFilter<T>(
  label: string,
  choices: (q: OfferQuery) => Array<Item<T>>,
  apply: (q: OfferQuery, v: T) => OfferQuery,
  opts: { placeholder: string; typed?: (text: string) => Typed<T> },
): Filter {
  return {
    label,
    shown: (q) => choices(q).find((c) => c.picked)?.label ?? 'custom',
    edit: async (q, title) => {
      const r = await pickValues(title, choices(q), opts);
      return r === undefined || r.length === 0 ? undefined : apply(q, r[0] as T);
    },
  };
}

const pct = (f: number) => `${Math.round(f * 1000) / 10}%`;

/** Every filter of the list, in the order it shows them. */
/** GPU models: a multi-pick of the models seen, the common ones and any typed. */
function gpuModelsFilter(gpuNames: readonly string[]): Filter {
  return {
    label: vscode.l10n.t('GPU models'),
    shown: (q) => q.gpuNames?.join(', ') || ANY,
    edit: async (q, title) => {
      const names = [...new Set([...gpuNames, ...COMMON_GPUS, ...(q.gpuNames ?? [])])].sort((a, b) => a.localeCompare(b));
      const chosen = new Set(q.gpuNames ?? []);
      const r = await pickValues(
        title,
        names.map((n) => ({ label: n, value: n, picked: chosen.has(n) })),
        {
          many: true,
          placeholder: 'GPU models (none selected = any model; type a model that is not listed to add it)',
          typed: typedGpuName,
        },
      );
      if (r === undefined) return undefined;
      const next = { ...q };
      if (r.length) next.gpuNames = r;
      else delete next.gpuNames;
      return next;
    },
  };
}

/** Number of GPUs: exactly N or at least N. */
function gpuCountFilter(): Filter {
  return {
    label: vscode.l10n.t('Number of GPUs'),
    shown: (q) => (q.numGpus !== undefined ? `${q.numGpus}` : q.minNumGpus !== undefined ? `≥ ${q.minNumGpus}` : ANY),
    edit: async (q, title) => {
      const r = await inputValue(title, {
        prompt: vscode.l10n.t('Number of GPUs: exactly N (e.g. 2) or at least N (e.g. >=2). Leave empty for any.'),
        placeholder: 'any (e.g. 2 or >=2)',
        value: q.numGpus !== undefined ? `${q.numGpus}` : q.minNumGpus !== undefined ? `>=${q.minNumGpus}` : '',
        validate: (v) => (!v.trim() || /^(>=\s*)?\d{1,2}$/.test(v.trim()) ? undefined : 'Enter a number such as 2, or >=2.'),
      });
      if (r === undefined) return undefined;
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
  };
}

function offerFilters(gpuNames: readonly string[]): Filter[] {
  const reliability: Array<[string, number | undefined]> = [
    ['Any reliability', undefined],
    ['≥ 90%', 0.9],
    ['≥ 95%', 0.95],
    ['≥ 98%', 0.98],
    ['≥ 99%', 0.99],
  ];
  return [
    gpuModelsFilter(gpuNames),
    gpuCountFilter(),
    numberFilter('Minimum GPU RAM', 'minGpuRamGb', {
      prompt: vscode.l10n.t('Minimum GPU RAM in GB.'),
      example: '24',
      unit: (n) => `${n} GB`,
      min: 0,
      max: 10_000,
    }),
    numberFilter('Maximum price', 'maxDphTotal', {
      prompt: vscode.l10n.t('Maximum price in $ per hour (the whole machine, disk included).'),
      example: '1.5',
      unit: (n) => `$${n}/h`,
      min: 0,
      max: 10_000,
    }),
    choiceFilter(
      'Minimum host reliability',
      (q) =>
        reliability
          .map(([label, v]) => ({
            label: v === undefined ? label : `≥ ${pct(v)}`,
            value: v,
            picked: v === q.minReliability || (v === undefined && q.minReliability === undefined),
          }))
          .concat(
            q.minReliability !== undefined && !reliability.some(([, v]) => v === q.minReliability)
              ? [{ label: `≥ ${pct(q.minReliability)}`, value: q.minReliability, picked: true }]
              : [],
          ),
      (q, v) => {
        const next = { ...q };
        if (v === undefined) delete next.minReliability;
        else next.minReliability = v;
        return next;
      },
      { placeholder: 'Minimum host reliability (or type one: 0.98, 98%)', typed: typedReliability },
    ),
    yesNoFilter('Verified hosts', 'verified', 'Verified hosts only', 'Include unverified hosts'),
    yesNoFilter('Rentable now', 'rentable', 'Rentable now only', 'Include machines not rentable now'),
    numberFilter('Minimum direct ports', 'minDirectPorts', {
      prompt: vscode.l10n.t('Minimum number of direct ports (needed for direct SSH/Jupyter).'),
      example: '1',
      int: true,
      min: 0,
      max: 65_535,
    }),
    choiceFilter(
      'Pricing type',
      (q) => [
        {
          label: vscode.l10n.t('On-demand'),
          description: vscode.l10n.t('fixed price, never interrupted'),
          value: 'on-demand' as const,
          picked: q.type !== 'bid',
        },
        {
          label: vscode.l10n.t('Interruptible (bid)'),
          description: vscode.l10n.t('cheaper, may be stopped when outbid'),
          value: 'bid' as const,
          picked: q.type === 'bid',
        },
      ],
      (q, type) => ({ ...q, type }),
      { placeholder: 'Pricing type' },
    ),
    choiceFilter(
      'Sort order',
      (q) =>
        SORT_CHOICES.map((s) => ({ label: s.label, value: s.order, picked: JSON.stringify(s.order) === JSON.stringify(q.order ?? SORT_CHOICES[0]?.order) })),
      (q, order) => ({ ...q, order: order as OfferQuery['order'] }),
      { placeholder: 'Sort order' },
    ),
    numberFilter('Maximum offers shown', 'limit', {
      prompt: vscode.l10n.t('Maximum number of offers to show (1-1000).'),
      example: '64',
      int: true,
      min: 1,
      max: 1000,
      none: 'the service default (64)',
    }),
  ];
}

type Row = vscode.QuickPickItem & { filter?: Filter };

/** The list once: the picked row (Search: no filter), or undefined on Escape. */
function pickRow(q: OfferQuery, filters: Filter[], active: Filter | undefined): Promise<Row | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<Row>();
    const search: Row = { label: vscode.l10n.t('$(search) Search'), description: vscode.l10n.t('with the filters below') };
    const rows: Row[] = filters.map((f) => ({ label: f.label, description: f.shown(q), filter: f }));
    qp.title = TITLE;
    qp.placeholder = 'Pick a filter to change it, or Search (Escape cancels)';
    qp.ignoreFocusOut = true;
    qp.items = [search, { label: vscode.l10n.t('Filters'), kind: vscode.QuickPickItemKind.Separator }, ...rows];
    qp.activeItems = [rows.find((r) => r.filter === active) ?? search];
    let done = false;
    const finish = (r: Row | undefined): void => {
      if (done) return;
      done = true;
      resolve(r);
      qp.dispose();
    };
    qp.onDidAccept(() => finish(qp.activeItems[0]));
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}

/** The filter list until Search (the query to run) or Escape (undefined). */
async function editFilters(start: OfferQuery, gpuNames: readonly string[]): Promise<OfferQuery | undefined> {
  const filters = offerFilters(gpuNames);
  let q = start;
  let last: Filter | undefined;
  for (;;) {
    const row = await pickRow(q, filters, last);
    if (!row) return undefined;
    if (!row.filter) return q;
    last = row.filter;
    q = (await row.filter.edit(q, `${TITLE}: ${row.filter.label}`)) ?? q;
  }
}

/** gpuRental.searchOffers(search?): a search (object or CLI query string) runs at once; otherwise the filter list. */
export async function searchOffers(services: Pick<Services, 'connection' | 'log' | 'offers'>, filters?: unknown): Promise<Offer[] | undefined> {
  ensureSignedIn(services);
  const offers = services.offers;
  let query: OfferQuery | undefined;
  // A documented object, the service's own filter object or a CLI query string (README).
  if (typeof filters === 'string' || (filters !== undefined && filters !== null && typeof filters === 'object' && !('kind' in filters))) {
    const parsed = parseOfferQuery(filters);
    if (!parsed.ok) throw new CommandFailure(parsed.message);
    query = parsed.query;
  } else {
    // The list edits the documented keys; a query in the CLI language starts it afresh.
    const current = await offers.savedQuery();
    query = await editFilters(current.filters ? withDefaults({}) : current, offers.gpuNames);
    if (!query) return undefined;
    query = withDefaults(query);
  }
  return searchAndShow(services, query);
}

/** Runs the search into the Offers view and shows the view; a failure is thrown for the command's reporter. */
async function searchAndShow(services: Pick<Services, 'log' | 'offers'>, query: OfferQuery): Promise<Offer[] | undefined> {
  try {
    const result = await services.offers.search(query);
    markWalkthroughStep('searched', services.log);
    background(vscode.commands.executeCommand('gpuRental.offers.focus'), services.log, 'showing the Offers view');
    return result;
  } catch (e) {
    throw failedTo(e, (why) => vscode.l10n.t('Could not search offers: {0}', why));
  }
}

/**
 * gpuRental.searchOffersQuery(text?): one input box in the official CLI's query language
 * (`num_gpus>=2 gpu_name=RTX_4090 dph<1.5`); an error names the token and its column as you type.
 * With a string argument it searches without asking.
 */
export async function searchOffersQuery(services: Pick<Services, 'connection' | 'log' | 'offers'>, text?: unknown): Promise<Offer[] | undefined> {
  ensureSignedIn(services);
  const typed = typeof text === 'string' ? text : await askQueryText(services);
  if (typed === undefined) return undefined;
  const parsed = parseQueryText(typed);
  if (!parsed.ok) throw new CommandFailure(vscode.l10n.t('Search Offers: {0}', parsed.message));
  return searchAndShow(services, parsed.query);
}

/** The input box of Search Offers (Query), starting from the query shown now; undefined on Escape. */
async function askQueryText(services: Pick<Services, 'offers'>): Promise<string | undefined> {
  const shown = await services.offers.savedQuery();
  return vscode.window.showInputBox({
    title: vscode.l10n.t('GPU Rental: Search Offers with a Query'),
    prompt: vscode.l10n.t(
      "The CLI's query language: field op value … (e.g. num_gpus>=2 gpu_name=RTX_4090 reliability>0.98 dph<1.5; -o dph sorts by price). Defaults: verified=true rentable=true external=false.",
    ),
    placeHolder: vscode.l10n.t('num_gpus>=2 gpu_name=RTX_4090 dph<1.5'),
    value: shown.text ?? '',
    ignoreFocusOut: true,
    validateInput: (v) => {
      if (!v.trim()) return undefined; // checked on Enter
      const r = parseQueryText(v);
      return r.ok ? undefined : { message: r.message, severity: vscode.InputBoxValidationSeverity.Error };
    },
  });
}
