// The official CLI's offer query language (`vastai search offers 'num_gpus>=2 gpu_name=RTX_4090'`),
// parsed into the service's own filter object. Pure: no vscode, no zod, so renters can paste what
// they already type in a terminal and get the same search.

import type { FilterOp, FilterScalar, OfferFilters } from '../api/types';
import { FIELDS, FIELD_ALIASES, MULTIPLIERS, offerField, suggestField, type FieldType } from './queryFields';
import * as l10n from '@vscode/l10n';

export { FIELD_ALIASES, offerField };

export type { FilterOp, OfferFilters };
export type OrderPair = [string, 'asc' | 'desc'];
export type OfferType = 'on-demand' | 'bid';

export interface CliQuery {
  filters: OfferFilters;
  order: OrderPair[];
  type?: OfferType;
  limit?: number;
  /** Disk in GB the quoted price includes (`--storage`). */
  allocatedStorage?: number;
}

/** A query the parser refused; `start`/`end` are offsets of the offending token in the input. */
export class QueryError extends Error {
  override readonly name = 'QueryError';
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

/** The CLI's default query: `verified=true rentable=true external=false`, best score first. */
export const CLI_DEFAULT_FILTERS: Readonly<OfferFilters> = Object.freeze({
  verified: { eq: true },
  rentable: { eq: true },
  external: { eq: false },
});
export const CLI_DEFAULT_ORDER: readonly OrderPair[] = Object.freeze([['score', 'desc']] as OrderPair[]);

const SYMBOL_OPS: ReadonlyArray<[string, FilterOp]> = [
  ['<=', 'lte'],
  ['>=', 'gte'],
  ['==', 'eq'],
  ['!=', 'neq'],
  ['=', 'eq'],
  ['<', 'lt'],
  ['>', 'gt'],
];
const WORD_OPS: Readonly<Record<string, FilterOp>> = {
  eq: 'eq',
  ne: 'neq',
  neq: 'neq',
  gt: 'gt',
  gte: 'gte',
  ge: 'gte',
  lt: 'lt',
  lte: 'lte',
  le: 'lte',
  in: 'in',
  notin: 'notin',
  nin: 'notin',
  'not in': 'notin',
};
export const OPERATOR_HELP = '< <= = == != >= > in notin (or eq neq gt gte lt lte)';

interface Scanner {
  text: string;
  pos: number;
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
function skipSpace(s: Scanner): void {
  while (isSpace(s.text[s.pos])) s.pos++;
}

function quoted(s: Scanner): { value: string; start: number } {
  const q = s.text[s.pos]!;
  const start = s.pos;
  const close = s.text.indexOf(q, s.pos + 1);
  if (close < 0) throw new QueryError(l10n.t('Unclosed quote {0} starting at column {1}: add the closing {2}.', q, start + 1, q), start, s.text.length);
  s.pos = close + 1;
  return { value: s.text.slice(start + 1, close), start };
}

/** One raw value: a quoted string (taken literally) or a bare word (underscores become spaces). */
interface RawValue {
  text: string;
  quoted: boolean;
  start: number;
  end: number;
}

function readList(s: Scanner): RawValue[] {
  const open = s.pos;
  s.pos++; // [
  const out: RawValue[] = [];
  for (;;) {
    skipSpace(s);
    const c = s.text[s.pos];
    if (c === undefined) throw new QueryError(l10n.t('The list starting at column {0} has no closing ]: add it, e.g. [TW,SE].', open + 1), open, s.text.length);
    if (c === ']') {
      s.pos++;
      return out;
    }
    if (c === ',') {
      s.pos++;
      continue;
    }
    if (c === '"' || c === "'") {
      const q = quoted(s);
      out.push({ text: q.value, quoted: true, start: q.start, end: s.pos });
      continue;
    }
    const start = s.pos;
    while (s.pos < s.text.length && !/[\s,\]]/.test(s.text[s.pos]!)) s.pos++;
    out.push({ text: s.text.slice(start, s.pos), quoted: false, start, end: s.pos });
  }
}

function convert(field: string, type: FieldType, raw: RawValue): FilterScalar {
  const t = raw.text;
  const where = `'${t}' (column ${raw.start + 1})`;
  if (type === 'bool') {
    if (/^(true|1)$/i.test(t)) return true;
    if (/^(false|0)$/i.test(t)) return false;
    throw new QueryError(l10n.t('{0} takes true or false, not {1}.', field, where), raw.start, raw.end);
  }
  if (type === 'num') {
    const n = Number(t);
    if (t.trim() === '' || !Number.isFinite(n)) throw new QueryError(l10n.t('{0} takes a number, not {1}.', field, where), raw.start, raw.end);
    const m = MULTIPLIERS[field];
    return m ? Math.round(n * m * 1000) / 1000 : n;
  }
  return raw.quoted ? t : t.replace(/_/g, ' ');
}

function readOp(s: Scanner): { op: FilterOp; start: number } | undefined {
  const start = s.pos;
  for (const [sym, op] of SYMBOL_OPS) {
    if (s.text.startsWith(sym, s.pos)) {
      s.pos += sym.length;
      // `=>`/`=<`/`<>` and the like are typos, not two operators
      if (/[<>=!]/.test(s.text[s.pos] ?? '')) {
        let end = s.pos;
        while (/[<>=!]/.test(s.text[end] ?? '')) end++;
        throw new QueryError(l10n.t("Unknown operator '{0}' at column {1}: use one of {2}.", s.text.slice(start, end), start + 1, OPERATOR_HELP), start, end);
      }
      return { op, start };
    }
  }
  const m = /^(not\s+in|[a-z]+)(?=[\s[]|$)/i.exec(s.text.slice(s.pos));
  if (m) {
    const word = m[1]!.toLowerCase().replace(/\s+/, ' ');
    const op = WORD_OPS[word];
    if (op) {
      s.pos += m[0].length;
      return { op, start };
    }
  }
  return undefined;
}

function readFieldComparison(s: Scanner, out: OfferFilters, touched: Set<string>): void {
  const start = s.pos;
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.text.slice(s.pos));
  if (!m) {
    let end = s.pos;
    while (end < s.text.length && !isSpace(s.text[end])) end++;
    throw new QueryError(
      l10n.t("Expected a field name at column {0}, found '{1}'. A comparison looks like num_gpus>=2.", start + 1, s.text.slice(start, end)),
      start,
      end,
    );
  }
  const name = m[0];
  s.pos += name.length;
  const field = offerField(name);
  if (!field) throw new QueryError(l10n.t("Unknown field '{0}' at column {1}.{2}", name, start + 1, suggestField(name)), start, s.pos);
  skipSpace(s);
  const opAt = s.pos;
  const op = readOp(s);
  if (!op) {
    let end = s.pos;
    while (end < s.text.length && !isSpace(s.text[end])) end++;
    const found = end > opAt ? `'${s.text.slice(opAt, end)}'` : l10n.t('the end of the query');
    throw new QueryError(
      l10n.t("After '{0}' expected an operator ({1}), found {2} at column {3}.", name, OPERATOR_HELP, found, opAt + 1),
      opAt,
      Math.max(end, opAt + 1),
    );
  }
  skipSpace(s);
  const valueAt = s.pos;
  const c = s.text[s.pos];
  let values: RawValue[];
  let list = false;
  if (c === undefined)
    throw new QueryError(
      l10n.t("'{0}' has no value: add one, e.g. {1}>=2, {2}=true or {3}=any.", s.text.slice(start, s.pos).trim(), name, name, name),
      start,
      s.pos,
    );
  if (c === '[') {
    values = readList(s);
    list = true;
  } else if (c === '"' || c === "'") {
    const q = quoted(s);
    values = [{ text: q.value, quoted: true, start: q.start, end: s.pos }];
  } else {
    while (s.pos < s.text.length && !isSpace(s.text[s.pos])) s.pos++;
    values = [{ text: s.text.slice(valueAt, s.pos), quoted: false, start: valueAt, end: s.pos }];
  }

  // `field=any` (any operator, as the CLI) drops the field, defaults included.
  if (!list && !values[0]!.quoted && values[0]!.text.toLowerCase() === 'any') {
    delete out[field];
    touched.add(field);
    return;
  }
  const type = FIELDS[field]!;
  if (list && op.op !== 'in' && op.op !== 'notin') {
    throw new QueryError(
      l10n.t("A list needs 'in' or 'notin' (column {0}): write {1} in [{2}].", op.start + 1, name, values.map((v) => v.text).join(',')),
      op.start,
      s.pos,
    );
  }
  if (type === 'bool' && op.op !== 'eq' && op.op !== 'neq') {
    throw new QueryError(l10n.t('{0} is true or false: compare it with = or != (column {1}).', field, op.start + 1), op.start, s.pos);
  }
  if (list && values.length === 0) throw new QueryError(l10n.t('The list at column {0} is empty: give at least one value.', valueAt + 1), valueAt, s.pos);
  const converted = values.map((v) => convert(field, type, v));
  // A field the user names replaces its CLI default rather than adding to it.
  if (!touched.has(field)) {
    delete out[field];
    touched.add(field);
  }
  const spec = (out[field] ??= {});
  spec[op.op] = op.op === 'in' || op.op === 'notin' ? converted : converted[0]!;
}

const ORDERABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `-o 'num_gpus-,dph'`: comma-separated fields, a trailing '-' sorts descending. */
function parseOrder(text: string, at: number): OrderPair[] {
  const out: OrderPair[] = [];
  let offset = at;
  for (const part of text.split(',')) {
    const raw = part.trim();
    const start = offset + part.indexOf(raw);
    offset += part.length + 1;
    if (!raw) continue;
    const desc = raw.endsWith('-');
    const name = raw.replace(/[-+]$/, '');
    const field = ORDERABLE.test(name) ? (offerField(name) ?? (name === 'score' ? 'score' : undefined)) : undefined;
    if (!field) throw new QueryError(l10n.t("Cannot sort by '{0}' (column {1}).{2}", name, start + 1, suggestField(name)), start, start + raw.length);
    out.push([field, desc ? 'desc' : 'asc']);
  }
  if (!out.length) throw new QueryError(l10n.t("The sort order at column {0} is empty: e.g. -o 'dph' or -o 'num_gpus-'.", at + 1), at, at + text.length);
  return out;
}

const TYPE_WORDS: Readonly<Record<string, OfferType>> = {
  'on-demand': 'on-demand',
  ondemand: 'on-demand',
  bid: 'bid',
  interruptible: 'bid',
};

interface Options {
  noDefault: boolean;
  order?: OrderPair[];
  type?: OfferType;
  limit?: number;
  storage?: number;
}

function readOptionValue(s: Scanner, inline: string | undefined, name: string, at: number): { value: string; start: number } {
  if (inline !== undefined) return { value: inline, start: at };
  skipSpace(s);
  const c = s.text[s.pos];
  if (c === undefined) throw new QueryError(`${name} needs a value.`, at, s.pos);
  if (c === '"' || c === "'") {
    const q = quoted(s);
    return { value: q.value, start: q.start + 1 };
  }
  const start = s.pos;
  while (s.pos < s.text.length && !isSpace(s.text[s.pos])) s.pos++;
  return { value: s.text.slice(start, s.pos), start };
}

function readOption(s: Scanner, opts: Options): void {
  const start = s.pos;
  while (s.pos < s.text.length && !isSpace(s.text[s.pos]) && s.text[s.pos] !== '=') s.pos++;
  const name = s.text.slice(start, s.pos);
  let inline: string | undefined;
  let inlineAt = s.pos;
  if (s.text[s.pos] === '=') {
    s.pos++;
    inlineAt = s.pos;
    if (s.text[s.pos] === '"' || s.text[s.pos] === "'") {
      const q = quoted(s);
      inline = q.value;
      inlineAt = q.start + 1;
    } else {
      while (s.pos < s.text.length && !isSpace(s.text[s.pos])) s.pos++;
      inline = s.text.slice(inlineAt, s.pos);
    }
  }
  switch (name) {
    case '-n':
    case '--no-default':
      opts.noDefault = true;
      return;
    case '-o':
    case '--order': {
      const v = readOptionValue(s, inline, name, inlineAt);
      opts.order = parseOrder(v.value, v.start);
      return;
    }
    case '-t':
    case '--type': {
      const v = readOptionValue(s, inline, name, inlineAt);
      const t = TYPE_WORDS[v.value.toLowerCase()];
      if (!t)
        throw new QueryError(
          l10n.t("--type is on-demand or bid (interruptible), not '{0}' (column {1}).", v.value, v.start + 1),
          v.start,
          v.start + v.value.length,
        );
      opts.type = t;
      return;
    }
    case '-i':
    case '-b':
    case '--interruptible':
    case '--bid':
      opts.type = 'bid';
      return;
    case '-d':
    case '--on-demand':
      opts.type = 'on-demand';
      return;
    case '--limit': {
      const v = readOptionValue(s, inline, name, inlineAt);
      const n = Number(v.value);
      if (!Number.isInteger(n) || n < 1 || n > 1000)
        throw new QueryError(
          l10n.t("--limit takes a whole number from 1 to 1000, not '{0}' (column {1}).", v.value, v.start + 1),
          v.start,
          v.start + v.value.length,
        );
      opts.limit = n;
      return;
    }
    case '--storage': {
      const v = readOptionValue(s, inline, name, inlineAt);
      const n = Number(v.value);
      if (!Number.isFinite(n) || n <= 0)
        throw new QueryError(l10n.t("--storage takes a number of GB, not '{0}' (column {1}).", v.value, v.start + 1), v.start, v.start + v.value.length);
      opts.storage = n;
      return;
    }
    default:
      throw new QueryError(
        l10n.t("Unknown option '{0}' at column {1}: the search takes -o/--order, --type, -n/--no-default, --limit and --storage.", name, start + 1),
        start,
        s.pos,
      );
  }
}

const CLI_PREFIX = /^\s*(?:(?:\.\/)?vast(?:ai|\.py)?\s+)?search\s+offers\b/i;

/**
 * Parses a CLI offer query. Accepts the bare query (`num_gpus>=2 dph<1.5`) or a pasted command
 * (`vastai search offers 'reliability>0.99' -o 'num_gpus-'`). Throws QueryError pointing at the token.
 */
export function parseCliQuery(input: string): CliQuery {
  if (typeof input !== 'string') throw new QueryError(l10n.t('The query must be text, e.g. num_gpus>=2 gpu_name=RTX_4090.'), 0, 0);
  // Work on a copy where a pasted command prefix and the shell quotes around the whole query
  // are blanked out, so every offset still points into what the user typed.
  let text = input;
  const prefix = CLI_PREFIX.exec(text);
  if (prefix) text = ' '.repeat(prefix[0].length) + text.slice(prefix[0].length);
  // A field name never starts with a quote, so a leading quote is the shell's, around the query:
  // `'num_gpus>=4' -o 'num_gpus-'`.
  const first = /\S/.exec(text);
  const q = first ? text[first.index] : undefined;
  if (first && (q === "'" || q === '"')) {
    const close = text.indexOf(q, first.index + 1);
    if (close > first.index) text = `${text.slice(0, first.index)} ${text.slice(first.index + 1, close)} ${text.slice(close + 1)}`;
  }

  const filters: OfferFilters = {};
  const touched = new Set<string>();
  const opts: Options = { noDefault: false };
  const s: Scanner = { text, pos: 0 };
  for (;;) {
    skipSpace(s);
    if (s.pos >= text.length) break;
    if (text[s.pos] === '-') readOption(s, opts);
    else readFieldComparison(s, filters, touched);
  }
  const merged: OfferFilters = {};
  if (!opts.noDefault) for (const [f, spec] of Object.entries(CLI_DEFAULT_FILTERS)) if (!touched.has(f)) merged[f] = { ...spec };
  Object.assign(merged, filters);
  const out: CliQuery = { filters: merged, order: opts.order ?? CLI_DEFAULT_ORDER.map((p) => [...p] as OrderPair) };
  if (opts.type) out.type = opts.type;
  if (opts.limit !== undefined) out.limit = opts.limit;
  if (opts.storage !== undefined) out.allocatedStorage = opts.storage;
  return out;
}

/** A caret line under the input marking the error, for logs and multi-line messages. */
/** @internal test */
export function pointAt(input: string, e: QueryError): string {
  const width = Math.max(1, e.end - e.start);
  return `${input}\n${' '.repeat(e.start)}${'^'.repeat(width)}`;
}
