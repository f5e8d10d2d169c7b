// Loads a template file and reports EVERY problem at once, each with its JSON path,
// before any request is sent: syntax, schema, variables, template-only rules, and the
// API layer's own creation rules applied to the request that would be sent.
import * as z from 'zod/mini';
import type { CreateInstanceRequest } from '../api/types';
import { parseJsonc, type JsonLocation } from './jsonc';
import { formatPath, pathKey, type JsonPath } from './jsonPath';
import { groupRuleProblems } from './groupTemplateRules';
import { TemplateSchema, type Template } from './templateSchema';
import { expandValue, writtenPath, type KeyOrigins, type VariableContext, type VariableProblem } from './templateVariables';
import { buildCreateRequest } from './requestBuilder';
import { creationRuleProblems } from './creationRules';
import { DEFAULT_GUARD, GuardSetupError, needsToolsWarning, composeOnstart, guardRequestFor, scriptOf, type ServerTemplateOnstart } from '../guard/plan';
import { sshPathProblem } from '../ssh/sshValues';
import * as l10n from '@vscode/l10n';

export interface TemplateProblem {
  path: JsonPath;
  /** Human path, e.g. `instance.env["-p 8080:8080"]`. */
  where: string;
  message: string;
  /** info: nothing is wrong, but something could not be checked (e.g. a service template not read). */
  severity: 'error' | 'warning' | 'info';
  /** Range in the file text, when known. */
  offset?: number;
  length?: number;
}

export interface TemplateContext extends VariableContext {
  /** Reads a workspace-relative file (onstartFile); undefined when it does not exist. */
  readFile(relativePath: string): Promise<string | undefined>;
  /**
   * The onstart of the service's template `hashId` (a template with template_hash_id and no
   * onstart of its own rents with it, and the guard is added to it): when given, the guard's
   * diagnostics are computed from it (undefined: it has none). It rejects when the template
   * cannot be read: an informational diagnostic then, not an error. Not given: not checked.
   */
  serverOnstart?(hashId: string): Promise<string | undefined>;
}

export interface LoadedTemplate {
  /** Parsed and expanded. Present only when there are no errors. */
  template?: Template;
  /** The onstart script that will be sent (inline or from onstartFile). */
  onstart?: string;
  /** Every ${secret:NAME} value the expansion used: to be registered for redaction before sending. */
  secrets: string[];
  problems: TemplateProblem[];
}

/** A JSON type in words ("an integer"), whole so a translation can decline it. */
function typeWords(type: string): string {
  switch (type) {
    case 'int':
      return l10n.t('an integer');
    case 'number':
      return l10n.t('a number');
    case 'string':
      return l10n.t('a string');
    case 'boolean':
      return l10n.t('a boolean');
    case 'object':
      return l10n.t('an object');
    case 'array':
      return l10n.t('an array');
    case 'null':
      return l10n.t('null');
    default:
      return type;
  }
}

/** The bound of a too_small / too_big issue as a whole sentence, counted in characters, items or plain. */
function boundMessage(origin: unknown, least: boolean, n: string): string {
  if (origin === 'string') return least ? l10n.t('Must be at least {0} characters.', n) : l10n.t('Must be at most {0} characters.', n);
  if (origin === 'array') return least ? l10n.t('Must be at least {0} items.', n) : l10n.t('Must be at most {0} items.', n);
  return least ? l10n.t('Must be at least {0}.', n) : l10n.t('Must be at most {0}.', n);
}

function issueMessage(issue: z.core.$ZodIssue, actual: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (actual === undefined)
        return issue.expected === 'object' ? l10n.t('Required: add this object.') : l10n.t('Required: add this {0} value.', issue.expected);
      return l10n.t('Must be {0}, not {1}.', typeWords(issue.expected), typeWords(actual === null ? 'null' : Array.isArray(actual) ? 'array' : typeof actual));
    case 'too_small':
      return Number(issue.minimum) === 0 && !issue.inclusive ? l10n.t('Must be greater than 0.') : boundMessage(issue.origin, true, String(issue.minimum));
    case 'too_big':
      return boundMessage(issue.origin, false, String(issue.maximum));
    case 'invalid_value':
      return l10n.t('Must be one of {0}.', issue.values.map((v) => JSON.stringify(v)).join(', '));
    case 'unrecognized_keys':
      return l10n.t('Unknown property. Remove it or check its spelling (hover a known property for its documentation).');
    case 'invalid_format':
      // A pattern with its own words (the guard's busyWhile and beforeStop say what they accept).
      return issue.format === 'regex' && !issue.message.startsWith('Invalid')
        ? issue.message
        : l10n.t('Invalid value. Check it against the template documentation.');
    default:
      return l10n.t('Invalid value. Check it against the template documentation.');
  }
}

/**
 * An object where "an object or false" was expected (`guard`) fails the union as a whole; report
 * what is wrong inside the object instead of an opaque "invalid value".
 */
function expandUnions(issues: readonly z.core.$ZodIssue[], root: unknown): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union') return [issue];
    const v = valueAt(
      root,
      issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
    );
    if (!v || typeof v !== 'object' || Array.isArray(v)) return [issue];
    const branch = issue.errors.find((errs) => errs.length && errs.every((e) => e.code !== 'invalid_type' || e.path.length > 0));
    return branch ? branch.map((e) => ({ ...e, path: [...issue.path, ...e.path] }) as z.core.$ZodIssue) : [issue];
  });
}

function valueAt(root: unknown, path: JsonPath): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** Validates a template file's text. */
export async function loadTemplate(text: string, template: TemplateContext): Promise<LoadedTemplate> {
  const secrets: string[] = [];
  const ctx: TemplateContext = {
    ...template,
    secret: async (name) => {
      const v = await template.secret(name);
      if (v) secrets.push(v);
      return v;
    },
  };
  const parsed = parseJsonc(text);
  const problems: TemplateProblem[] = [];
  const add = (path: JsonPath, message: string, severity: TemplateProblem['severity'] = 'error') => {
    // A missing property is shown on its nearest existing parent.
    let loc: JsonLocation | undefined;
    for (let n = path.length; n >= 0 && !loc; n--) loc = parsed.locations.get(pathKey(path.slice(0, n)));
    const p: TemplateProblem = { path, where: formatPath(path), message, severity };
    if (loc) {
      // Point at the property name when there is one: that is where the reader looks.
      p.offset = loc.keyOffset ?? loc.offset;
      p.length = loc.keyLength ?? loc.length;
    }
    problems.push(p);
  };

  if (parsed.errors.length) {
    for (const e of parsed.errors) {
      problems.push({
        path: [],
        where: '(syntax)',
        message: l10n.t('{0}. Fix the JSON syntax.', e.message),
        severity: 'error',
        offset: e.offset,
        length: e.length,
      });
    }
    return { problems, secrets };
  }
  const raw = parsed.value;

  // Schema problems, all of them (zod reports every issue, not the first).
  const result = z.safeParse(TemplateSchema, raw);
  if (!result.success) {
    for (const issue of expandUnions(result.error.issues, raw)) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (issue.code === 'unrecognized_keys') for (const k of issue.keys) add([...path, k], unknownProperty(k));
      else add(path, issueMessage(issue, valueAt(raw, path)));
    }
  }

  // Variables: expanded over the raw value so their problems carry paths even when the schema failed.
  const varProblems: VariableProblem[] = [];
  const origins: KeyOrigins = new Map();
  const expanded = await expandValue(raw, ctx, varProblems, [], origins);
  for (const p of varProblems) add(p.path, p.message);
  // Problems found on the expanded value are shown where the key is written (never an expanded secret).
  const addExpanded = (path: JsonPath, message: string) => add(writtenPath(path, origins), message);

  // Keys that name JavaScript object machinery are never template properties (nor env names).
  forEachKey(raw, [], (path, key) => FORBIDDEN_KEYS.has(key) && add(path, unknownProperty(key)));
  forEachKey(expanded, [], (path, key) => FORBIDDEN_KEYS.has(key) && addExpanded(path, unknownProperty(key)));

  // The identity file goes into an SSH config: a path OpenSSH cannot read back is a template problem.
  const sshOpts = (expanded as Partial<Template> | undefined)?.ssh;
  if (sshOpts && typeof sshOpts === 'object' && typeof sshOpts.identityFile === 'string') {
    const why = sshPathProblem(sshOpts.identityFile);
    if (why) add(['ssh', 'identityFile'], l10n.t('This path cannot be written into an SSH config: {0}. Use a path without it.', why));
  }

  const rules = templateRuleProblems(raw);
  for (const r of rules) add(r.path, r.message, r.severity);

  // onstart from a file.
  let onstart: string | undefined;
  const inst = (expanded as Partial<Template> | undefined)?.instance;
  if (inst && typeof inst === 'object' && typeof inst.onstartFile === 'string') {
    const rel = inst.onstartFile;
    if (/^([\\/]|[A-Za-z]:)/.test(rel) || rel.split(/[\\/]/).includes('..')) {
      add(['instance', 'onstartFile'], l10n.t('onstartFile must be a path inside the workspace (relative, without ".."): "{0}".', rel));
    } else {
      onstart = await ctx.readFile(rel);
      if (onstart === undefined)
        add(['instance', 'onstartFile'], l10n.t('onstartFile "{0}" does not exist in the workspace. Create it or correct the path.', rel));
    }
  } else if (inst && typeof inst === 'object' && typeof inst.onstart === 'string') {
    onstart = inst.onstart;
  }

  const parsedExpanded = z.safeParse(TemplateSchema, expanded);
  if (result.success && !parsedExpanded.success) {
    // Valid as written, invalid once variables are expanded (e.g. a port key built from ${env:PORT}).
    for (const issue of parsedExpanded.error.issues) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (issue.code === 'unrecognized_keys') for (const k of issue.keys) addExpanded([...path, k], unknownProperty(k));
      else addExpanded(path, l10n.t('After expanding variables: {0}', issueMessage(issue, valueAt(expanded, path))));
    }
  }
  // The API layer's creation rules, on the request this template would send. Run even when
  // the schema failed, so one pass shows everything; a path that already has a problem is skipped.
  const candidate = (parsedExpanded.success ? parsedExpanded.data : expanded) as Template | undefined;
  if (candidate && typeof candidate === 'object' && candidate.instance && typeof candidate.instance === 'object') {
    const taken = new Set(problems.map((p) => pathKey(p.path)));
    for (const p of creationProblemsFor(candidate, onstart)) {
      const at = writtenPath(p.path, origins);
      if (!taken.has(pathKey(at))) add(at, p.message);
    }
    const base = await finalOnstart(candidate, onstart, ctx, (at, message) => add(at, message, 'info'));
    for (const p of guardProblems(candidate, base)) if (!taken.has(pathKey(p.path))) add(p.path, p.message, p.severity);
  }
  // A rule may quote a value (e.g. a wrong port-mapping value); expanded from a secret it reads ***.
  const masked = dedupe(problems).map((p) => ({ ...p, where: maskSecrets(p.where, secrets), message: maskSecrets(p.message, secrets) }));
  const out: LoadedTemplate = { problems: masked, secrets };
  if (parsedExpanded.success && !out.problems.some((p) => p.severity === 'error')) {
    out.template = parsedExpanded.data;
    if (onstart !== undefined) out.onstart = onstart;
  }
  return out;
}

/** `text` with every secret value (longest first) replaced by ***, also in its JSON-quoted form. */
function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const v of [...new Set(secrets)].filter((x) => x.length >= 3).sort((a, b) => b.length - a.length)) {
    out = out.split(v).join('***');
    const quoted = JSON.stringify(v).slice(1, -1);
    if (quoted !== v) out = out.split(quoted).join('***');
  }
  return out;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function unknownProperty(key: string): string {
  return l10n.t('Unknown property {0}. Remove it or check its spelling.', JSON.stringify(key));
}

/** Calls `fn` for every object key in a JSON value, with the key's path (depth is bounded by the parser). */
function forEachKey(v: unknown, path: JsonPath, fn: (path: JsonPath, key: string) => unknown): void {
  if (Array.isArray(v)) v.forEach((x, i) => forEachKey(x, [...path, i], fn));
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      fn([...path, k], k);
      forEachKey(x, [...path, k], fn);
    }
}

function dedupe(problems: TemplateProblem[]): TemplateProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${pathKey(p.path)}|${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Maps a creation-request field to where it comes from in the template. */
function templatePathFor(field: JsonPath, t: Template): JsonPath {
  const [head, ...rest] = field;
  if (head === 'price') return ['offer', 'bidPrice'];
  if (head === 'onstart' && t.instance.onstartFile !== undefined) return ['instance', 'onstartFile'];
  if (head === 'label') return t.instance.label !== undefined ? ['instance', 'label'] : ['name'];
  if (head === undefined) return ['instance'];
  return ['instance', head, ...rest];
}

function creationProblemsFor(t: Template, onstart: string | undefined): Array<{ path: JsonPath; message: string }> {
  let req: CreateInstanceRequest;
  try {
    req = buildCreateRequest(t, 'label-check', onstart);
  } catch {
    return [];
  }
  // Validate the price as written, so "price on on-demand" and "bid without price" are the API layer's rules.
  const bidPrice = t.offer?.bidPrice;
  if (bidPrice !== undefined) req.price = bidPrice;
  else delete req.price;
  return creationRuleProblems(req, t.offer?.type === 'bid').map((p) => ({ path: templatePathFor(p.path, t), message: p.message }));
}

/**
 * The onstart a rent would add the guard to: the template's own, else its service template's
 * (read only when a guard would be added to it). A read that fails is said, not an error.
 */
async function finalOnstart(
  t: Template,
  own: string | undefined,
  ctx: TemplateContext,
  note: (at: JsonPath, message: string) => void,
): Promise<string | undefined> {
  const hash = t.instance.template_hash_id;
  const base = own ?? t.instance.onstart;
  if (base !== undefined || typeof hash !== 'string' || !ctx.serverOnstart || t.guard === false || t.instance.runtype === 'args') return base;
  try {
    return await ctx.serverOnstart(hash);
  } catch (e) {
    note(
      ['instance', 'template_hash_id'],
      l10n.t(
        "The start script of the service's template {0} could not be read ({1}), so whether the idle guard fits with it is checked when you rent.",
        hash,
        e instanceof Error ? e.message : 'unknown error',
      ),
    );
    return undefined;
  }
}

/**
 * ServerOnstart for a session: each service template read once (lazily, when a template file that
 * names it is checked), a failed read tried again next time. `lookUp` answers undefined for no such template.
 */
export function cachedServerOnstart(lookUp: (hashId: string) => Promise<ServerTemplateOnstart | undefined>): (hashId: string) => Promise<string | undefined> {
  const cache = new Map<string, Promise<string | undefined>>();
  return (hashId) => {
    let p = cache.get(hashId);
    if (!p) {
      p = lookUp(hashId).then((t) => {
        if (!t) throw new Error(l10n.t('the service has no template {0}', hashId));
        return scriptOf(t);
      });
      cache.set(hashId, p);
      p.catch(() => cache.delete(hashId));
    }
    return p;
  };
}

/** The idle guard must be installable: onstart runs (not runtype args) and fits with it. */
function guardProblems(t: Template, onstart: string | undefined): Array<{ path: JsonPath; message: string; severity: 'error' | 'warning' }> {
  if (t.guard === false || !t.instance || typeof t.instance !== 'object') return [];
  const explicit = t.guard !== undefined && typeof t.guard === 'object';
  if (t.instance.runtype === 'args') {
    return explicit
      ? [
          {
            path: ['guard'],
            message: l10n.t(
              'Runtype "args" does not run onstart, so the idle guard cannot be installed and nothing would stop this instance when idle. Use an ssh or jupyter runtype, or set "guard": false.',
            ),
            severity: 'error',
          },
        ]
      : [];
  }
  try {
    // The plan a rent would use (a Jupyter runtype's guard also watches Jupyter), with the final onstart.
    const plan = guardRequestFor(explicit ? t.guard : undefined, t.instance.runtype, DEFAULT_GUARD, 'https://console.vast.ai')?.plan;
    const c = composeOnstart(onstart ?? t.instance.onstart, plan, { apiUrl: 'https://console.vast.ai', dphTotal: 1 });
    const at: JsonPath = t.instance.onstartFile !== undefined ? ['instance', 'onstartFile'] : ['instance', 'onstart'];
    return c.form === 'all-compressed' ? [{ path: at, message: needsToolsWarning(), severity: 'warning' }] : [];
  } catch (e) {
    if (!(e instanceof GuardSetupError)) return [];
    const inst = t.instance;
    const path: JsonPath =
      inst.onstartFile !== undefined
        ? ['instance', 'onstartFile']
        : inst.onstart !== undefined
          ? ['instance', 'onstart']
          : inst.template_hash_id !== undefined && onstart !== undefined
            ? ['instance', 'template_hash_id']
            : ['guard'];
    return explicit
      ? [{ path, message: e.message, severity: 'error' }]
      : [
          {
            path,
            message: l10n.t('{0} Without "guard": false, instances from this template are created without the default idle guard.', e.message),
            severity: 'warning',
          },
        ];
  }
}

/** Rules that exist only for templates (the request itself cannot express them). */
export function templateRuleProblems(raw: unknown): Array<{ path: JsonPath; message: string; severity: 'error' | 'warning' }> {
  const out: Array<{ path: JsonPath; message: string; severity: 'error' | 'warning' }> = [...groupRuleProblems(raw)];
  if (!raw || typeof raw !== 'object') return out;
  const t = raw as { offer?: Record<string, unknown>; instance?: Record<string, unknown> };
  const offer = t.offer && typeof t.offer === 'object' ? t.offer : undefined;
  const inst = t.instance && typeof t.instance === 'object' ? t.instance : undefined;
  if (offer) {
    if (offer.numGpus !== undefined && offer.minNumGpus !== undefined)
      out.push({ path: ['offer', 'minNumGpus'], message: l10n.t('Use numGpus (exact) or minNumGpus (at least), not both.'), severity: 'error' });
    if (typeof offer.bidPrice === 'number' && typeof offer.maxDphTotal === 'number' && offer.bidPrice > offer.maxDphTotal)
      out.push({
        path: ['offer', 'bidPrice'],
        message: l10n.t('bidPrice (${0}/h) is above maxDphTotal (${1}/h). Lower the bid or raise the cap.', offer.bidPrice, offer.maxDphTotal),
        severity: 'warning',
      });
  }
  if (inst) {
    if (inst.onstart !== undefined && inst.onstartFile !== undefined)
      out.push({ path: ['instance', 'onstartFile'], message: l10n.t('Use onstart (inline) or onstartFile, not both.'), severity: 'error' });
  }
  return out;
}
