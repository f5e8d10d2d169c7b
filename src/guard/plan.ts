// The idle guard's settings for one instance and the onstart that installs it.
// The watchdog (watchdog.sh) runs on the instance itself, so it keeps working with the
// laptop closed; it travels in the create request's env (onstart's 4,048 characters are the
// user's), and onstart writes it to a file and starts it in the background before the user's
// own onstart runs. No `vscode` here: unit tests run the composed onstart for real.
import { gzipSync } from 'node:zlib';
import WATCHDOG from './watchdog.sh';
import {
  BEFORE_STOP_PATTERN,
  BUSY_WHILE_PATTERN,
  DEFAULT_GUARD,
  FILE,
  ONSTART_LIMIT,
  STOPPED_DAYS_MAX,
  type GuardAction,
  type GuardDefaults,
} from './installed';
import * as l10n from '@vscode/l10n';

export { DEFAULT_GUARD, ONSTART_LIMIT, installedGuard, type GuardAction, type GuardDefaults, type InstalledGuard } from './installed';

/** The template's `guard` block as written (every field optional). */
export interface GuardBlock {
  idleMinutes?: number;
  gpuUtilBelow?: number;
  action?: GuardAction;
  keepWhileSsh?: boolean;
  maxHours?: number;
  maxSpend?: number;
  /** Processes (a part of their command line, e.g. "python train.py") that keep it running. */
  busyWhile?: string | string[];
  /** A command run before the stop (a checkpoint), with a time limit, its output in the guard log. */
  beforeStop?: string;
  beforeStopSeconds?: number;
  destroyAfterStoppedDays?: number;
}

/** What the watchdog of one instance does. */
export interface GuardPlan {
  idleMinutes: number;
  gpuUtilBelow: number;
  action: GuardAction;
  keepWhileSsh: boolean;
  maxHours?: number;
  maxSpend?: number;
  busyWhile?: string[];
  beforeStop?: string;
  beforeStopSeconds?: number;
  /** Carried with the instance for VS Code (a stopped machine's watchdog does not run). */
  destroyAfterStoppedDays?: number;
  /** Watch Jupyter (connections to its port, busy kernels): jupyter runtypes. */
  jupyter?: boolean;
  /**
   * A member of a group (src/groups): it stops only when every member has been idle (it shares its
   * verdict with its peers over the group's network), and its maxSpend counts the group's total $/h.
   */
  group?: { dphTotal: number };
}

/**
 * The plan for a template: its block over the defaults; `false` (or the setting off, with no
 * block) means no guard. `destroy` only ever comes from an explicit `"action": "destroy"`.
 */
export function resolveGuardPlan(block: GuardBlock | false | undefined, defaults: GuardDefaults = DEFAULT_GUARD): GuardPlan | undefined {
  if (block === false) return undefined;
  if (block === undefined && !defaults.enabled) return undefined;
  const b = block ?? {};
  const plan: GuardPlan = {
    idleMinutes: b.idleMinutes ?? defaults.idleMinutes,
    gpuUtilBelow: b.gpuUtilBelow ?? defaults.gpuUtilBelow,
    action: b.action === 'destroy' ? 'destroy' : 'stop',
    keepWhileSsh: b.keepWhileSsh ?? true,
  };
  if (b.maxHours !== undefined) plan.maxHours = b.maxHours;
  if (b.maxSpend !== undefined) plan.maxSpend = b.maxSpend;
  if (b.busyWhile !== undefined) plan.busyWhile = typeof b.busyWhile === 'string' ? [b.busyWhile] : [...b.busyWhile];
  if (b.beforeStop !== undefined) plan.beforeStop = b.beforeStop;
  if (b.beforeStopSeconds !== undefined) plan.beforeStopSeconds = b.beforeStopSeconds;
  if (b.destroyAfterStoppedDays !== undefined) plan.destroyAfterStoppedDays = b.destroyAfterStoppedDays;
  return plan;
}

/** The template's guard.destroyAfterStoppedDays as whole days within 1..365, or undefined. */
function stoppedDaysOf(plan: GuardPlan): number | undefined {
  const d = plan.destroyAfterStoppedDays;
  return d !== undefined && Number.isInteger(d) && d >= 1 && d <= STOPPED_DAYS_MAX ? d : undefined;
}

/**
 * The hard cap in seconds of running time, and which limit sets it; undefined when none is set.
 * A group member's maxSpend is the group's: every member runs as long, at the group's total $/h.
 */
export function capOf(plan: GuardPlan, dphTotal: number): { seconds: number; why: 'maxHours' | 'maxSpend' } | undefined {
  const caps: Array<{ seconds: number; why: 'maxHours' | 'maxSpend' }> = [];
  const rate = plan.group?.dphTotal ?? dphTotal;
  if (plan.maxHours !== undefined) caps.push({ seconds: plan.maxHours * 3600, why: 'maxHours' });
  if (plan.maxSpend !== undefined && rate > 0) caps.push({ seconds: (plan.maxSpend / rate) * 3600, why: 'maxSpend' });
  if (!caps.length) return undefined;
  const c = caps.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return { seconds: Math.max(60, Math.floor(c.seconds)), why: c.why };
}

export interface GuardContext {
  /** The service's base URL the watchdog calls (the apiBaseUrl setting). */
  apiUrl: string;
  /** $/h of the rented offer (dph_total), for maxSpend. */
  dphTotal: number;
  /** GPUs rented (0: none, so no nvidia-smi is expected); unknown: GPUs are expected. */
  gpus?: number;
}

/** Only a plain http(s) URL goes into the script: it is single-quoted in shell, and checked first. */
function checkedUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new GuardSetupError(
      l10n.t('The API base URL "{0}" is not a valid URL, so the idle guard cannot reach the service from the instance.', raw.slice(0, 80)),
    );
  }
  const s = u.href.replace(/\/+$/, '');
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || !/^[A-Za-z0-9:/._~%[\]-]+$/.test(s)) {
    throw new GuardSetupError(
      l10n.t('The API base URL "{0}" cannot be given to the idle guard (only plain http(s) URLs without credentials or special characters).', raw.slice(0, 80)),
    );
  }
  return s;
}

export class GuardSetupError extends Error {
  override name = 'GuardSetupError';
}

/** The environment the watchdog starts with (all values are digits, words or the checked URL). */
export function guardEnv(plan: GuardPlan, ctx: GuardContext): Array<[string, string]> {
  // The watchdog's own defaults (30 min, 5 %, SSH counts) are left out: onstart is small.
  const api = checkedUrl(ctx.apiUrl);
  const env: Array<[string, string]> = api === DEFAULT_API ? [] : [['GPU_GUARD_API', api]];
  const idle = String(Math.max(1, Math.round(plan.idleMinutes)));
  const below = String(Math.max(0, Math.min(101, Math.round(plan.gpuUtilBelow))));
  if (idle !== '30') env.push(['GPU_GUARD_IDLE_MINUTES', idle]);
  if (below !== '5') env.push(['GPU_GUARD_GPU_BELOW', below]);
  if (!plan.keepWhileSsh) env.push(['GPU_GUARD_KEEP_WHILE_SSH', '0']);
  if (plan.action === 'destroy') env.push(['GPU_GUARD_ACTION', 'destroy']);
  const cap = capOf(plan, ctx.dphTotal);
  if (cap) env.push(['GPU_GUARD_CAP_SECONDS', String(cap.seconds)], ['GPU_GUARD_CAP_WHY', cap.why]);
  if (ctx.gpus === 0) env.push(['GPU_GUARD_GPUS', '0']);
  const stoppedDays = stoppedDaysOf(plan);
  if (stoppedDays) env.push(['GPU_GUARD_DESTROY_STOPPED_DAYS', String(stoppedDays)]);
  const busy = (plan.busyWhile ?? []).filter((w) => BUSY_WHILE_PATTERN.test(w));
  if (busy.length) env.push(['GPU_GUARD_BUSY_WHILE', busy.join('|')]);
  // Last: the one value that is the user's own text (installed.ts reads only what comes before it).
  if (plan.beforeStop) {
    if (!BEFORE_STOP_PATTERN.test(plan.beforeStop))
      throw new GuardSetupError(l10n.t('guard.beforeStop must be one line of at most 500 characters (join commands with ";" or "&&").'));
    const limit = String(Math.max(1, Math.min(3600, Math.round(plan.beforeStopSeconds ?? 300))));
    if (limit !== '300') env.push(['GPU_GUARD_BEFORE_STOP_SECONDS', limit]);
    env.push([BEFORE_STOP, plan.beforeStop]);
  }
  return env;
}

/** Parts of the watchdog only a plan that uses them carries (`#@name` … `#@` in watchdog.sh): it stays small. */
export type WatchdogPart = 'jupyter' | 'busyWhile' | 'beforeStop' | 'group';
export const ALL_PARTS: readonly WatchdogPart[] = ['jupyter', 'busyWhile', 'beforeStop', 'group'];

export function partsOf(plan: GuardPlan): WatchdogPart[] {
  const wanted: Record<WatchdogPart, boolean> = {
    jupyter: !!plan.jupyter,
    busyWhile: !!plan.busyWhile?.some((w) => BUSY_WHILE_PATTERN.test(w)),
    beforeStop: !!plan.beforeStop,
    group: !!plan.group,
  };
  return ALL_PARTS.filter((p) => wanted[p]);
}

/** The guard of one member of a group whose members cost `groupDph` $/h in total (src/groups/groupFlow.ts). */
export function groupGuard(guard: GuardRequest, groupDph: number): GuardRequest {
  return { ...guard, plan: { ...guard.plan, group: { dphTotal: groupDph } } };
}

/**
 * The watchdog as shipped (packed into env): the parts not wanted, comment lines, indentation and
 * blank lines removed, and its own upper-case variables renamed to short ones by their `$`/`${`,
 * assignments and `unset` lines (watchdog.sh writes arithmetic with `$` for this; environment
 * names stay).
 */
export function minifiedWatchdog(script: string = WATCHDOG, parts: readonly WatchdogPart[] = ALL_PARTS): string {
  const kept: string[] = [];
  let skip = false;
  for (const raw of script.split('\n')) {
    const l = raw.trim();
    const mark = /^#@(\w*)$/.exec(l);
    if (mark) skip = !!mark[1] && !parts.includes(mark[1] as WatchdogPart);
    // No shebang either: onstart runs it with `sh`.
    else if (!skip && l && !l.startsWith('#')) kept.push(l);
  }
  let text = `${kept.join('\n')}\n`;
  const own = [...new Set([...text.matchAll(/(?:^|[\s;(])([A-Z][A-Z_]{2,})=/gm)].map((m) => m[1]!))].filter((v) => !KEPT_NAMES.test(v));
  own
    .sort((a, b) => b.length - a.length)
    .forEach((v, i) => {
      const short = `_${String.fromCharCode(97 + (i % 26))}${i >= 26 ? String(Math.floor(i / 26)) : ''}`;
      text = text
        .replace(new RegExp(`(\\$\\{?)${v}(?![A-Za-z0-9_])`, 'g'), `$1${short}`)
        .replace(new RegExp(`(^|[\\s;(])${v}=`, 'gm'), `$1${short}=`)
        .replace(/^unset .*$/gm, (line) => line.replace(new RegExp(`(?<= )${v}(?![A-Za-z0-9_])`, 'g'), short));
    });
  return text;
}

/** Names the watchdog reads from its environment or the group.env it parses (never renamed). */
const KEPT_NAMES = /^(GPU_GUARD_|CONTAINER_|VAST_|JUPYTER_|TMPDIR$|IFS$|PATH$|NODE_RANK$)/;
const BEFORE_STOP = 'GPU_GUARD_BEFORE_STOP';

/** @internal test */
export const WATCHDOG_SCRIPT: string = WATCHDOG;

const DIR = '"${TMPDIR:-/tmp}/gpu-rental"';
/** The service's URL the watchdog calls when GPU_GUARD_API is not given (its own default). */
const DEFAULT_API = 'https://console.vast.ai';
/** What an image without base64 or gzip prints for the all-compressed form (no quotes or $: it is in double quotes). */
export const NO_TOOLS = 'gpu-rental: no base64 or gzip here: onstart not run';
/** The warning templates get before renting when their onstart needs the all-compressed form. */
export function needsToolsWarning(): string {
  return l10n.t(
    'With the idle guard this onstart only fits compressed: the image must have base64 and gzip (most do), or the script does not run. Shorten the onstart to keep it readable, or set "guard": false.',
  );
}

function packed(text: string): string {
  return gzipSync(Buffer.from(text, 'utf8'), { level: 9 }).toString('base64');
}

function launchLine(plan: GuardPlan, ctx: GuardContext): string {
  const env = guardEnv(plan, ctx)
    .map(([k, v]) => `${k}='${v.replace(/'/g, "'\\''")}'`)
    .join(' ');
  return `${env} nohup sh ${FILE('guard.sh')} </dev/null >/dev/null 2>&1 &\n`;
}

/** The guard one creation installs: the plan, whether the template asked for it, and the API URL. */
export interface GuardRequest {
  plan: GuardPlan;
  /** The template has a `guard` block: a guard that cannot be installed fails the creation. */
  explicit: boolean;
  apiUrl: string;
  /** The start script the guard is added to (the template's, or the server template's), once baseOnstart has read it. */
  onstart?: string;
}

/**
 * The guard a creation installs: the template's block, else the settings' default; none for
 * runtype "args" (its onstart never runs; template validation rejects an explicit block there).
 */
export function guardRequestFor(
  block: GuardBlock | false | undefined,
  runtype: string | undefined,
  defaults: GuardDefaults,
  apiUrl: string,
): GuardRequest | undefined {
  const plan = resolveGuardPlan(block, defaults);
  if (!plan || runtype === 'args') return undefined;
  if (runtype?.includes('jupyter')) plan.jupyter = true;
  return { plan, explicit: block !== undefined, apiUrl };
}

/**
 * The onstart (and the env variables it needs) for one rent attempt on this offer: its price
 * for maxSpend, its GPU count (0: the watchdog expects no nvidia-smi). A guard the template
 * asked for that cannot be installed throws GuardSetupError (before anything is rented); the
 * default guard is left out with a warning instead, so a long onstart still works as it did
 * without guards.
 */
export function guardedOnstart(
  user: string | undefined,
  guard: GuardRequest | undefined,
  offer: { dphTotal: number; gpus?: number },
  warn: (message: string) => void,
): { onstart?: string; env?: Record<string, string> } {
  const plainUser = user === undefined ? {} : { onstart: user };
  if (!guard) return plainUser;
  try {
    const c = composeOnstart(user, guard.plan, { apiUrl: guard.apiUrl, dphTotal: offer.dphTotal, ...(offer.gpus !== undefined ? { gpus: offer.gpus } : {}) });
    return { ...(c.onstart !== undefined ? { onstart: c.onstart } : {}), ...(c.env ? { env: c.env } : {}) };
  } catch (e) {
    if (guard.explicit || !(e instanceof GuardSetupError)) throw e;
    warn(`the default idle guard is left out of this instance: ${e.message}`);
    return plainUser;
  }
}

export type OnstartForm = 'user-only' | 'guard-env' | 'all-compressed';

export interface ComposedOnstart {
  /** undefined when there is neither a guard nor a user script. */
  onstart?: string;
  form: OnstartForm;
  /** Variables to add to the create request's `env` (the packed watchdog for the short onstart forms). */
  env?: Record<string, string>;
}

/** The create request's `env` variable that carries the watchdog, gzip + base64 (env has no documented size limit; onstart has 4,048 characters). */
export const SCRIPT_VAR = 'GPU_GUARD_SCRIPT';

/**
 * The onstart to send: the watchdog installed and started in the background first (so a user
 * script that blocks or exits cannot keep it from starting), then the user's own script,
 * unchanged. The watchdog (about 5 KB even stripped) goes in the request's env (gzip + base64,
 * see SCRIPT_VAR); within the service's 4,048 characters of onstart, the first form that fits:
 * 1. a short bootstrap that unpacks and starts it, then the user's script, readable; 2. that
 * onstart encoded and sourced, so the user's script still runs in the service's own shell.
 */
export function composeOnstart(user: string | undefined, plan: GuardPlan | undefined, ctx: GuardContext): ComposedOnstart {
  if (!plan) return user === undefined ? { form: 'user-only' } : { onstart: user, form: 'user-only' };
  const own = user ?? '';
  const tail = own ? (own.endsWith('\n') ? own : `${own}\n`) : '';
  const script = minifiedWatchdog(WATCHDOG, partsOf(plan));
  const launch = launchLine(plan, ctx);
  const noTools = (dir: string) => `echo "[3,$(date +%s),\\"${plan.action}\\"]">${dir}state.json`;
  const env = { [SCRIPT_VAR]: packed(script) };
  // Without base64 or gzip (or the variable) the watchdog cannot start: its state says so at once instead.
  // In a subshell that changes into the guard's folder: the user's script keeps its directory.
  const bootstrap = `(mkdir -p ${DIR}&&cd ${DIR}&&{ echo "$${SCRIPT_VAR}"|base64 -d|gzip -dc>guard.sh||${noTools('')};})2>/dev/null\n${launch}`;
  const guardEnvForm = `${bootstrap}${tail}`;
  if (guardEnvForm.length <= ONSTART_LIMIT) return { onstart: guardEnvForm, form: 'guard-env', env };
  // Only this form needs base64 and gzip for the user's part: without them it says so (in the
  // onstart log and guard.log) instead of silently running nothing; templates are warned first.
  const all =
    `mkdir -p ${DIR} && if { echo '${packed(guardEnvForm)}' | base64 -d | gzip -dc >${FILE('onstart.sh')}; } 2>/dev/null; then . ${FILE('onstart.sh')}; ` +
    `else echo "${NO_TOOLS}" >&2; ${noTools(`${DIR}/`)}; fi\n`;
  if (all.length <= ONSTART_LIMIT) return { onstart: all, form: 'all-compressed', env };
  throw new GuardSetupError(
    l10n.t('The onstart script with the idle guard would be {0} characters even compressed; the service allows {1}. ', all.length, ONSTART_LIMIT) +
      l10n.t('Shorten the onstart script (move setup into the image or a file it downloads), or turn the guard off for this template with "guard": false.'),
  );
}

/** The service's template as far as the guard needs it (its own start script). */
export interface ServerTemplateOnstart {
  hash_id: string;
  onstart?: string | null;
}

/**
 * The start script the guard is added to. A template that rents with a server template
 * (template_hash_id) and sets no onstart of its own would otherwise send only the watchdog,
 * which replaces the server template's own (`ollama serve`, Jupyter entrypoints): so the
 * server template's onstart is read first. It cannot be read: an error, before anything is rented.
 */
export async function baseOnstart(
  own: string | undefined,
  hashId: string | undefined,
  guard: GuardRequest | undefined,
  lookUp: (hashId: string) => Promise<ServerTemplateOnstart | undefined>,
): Promise<string | undefined> {
  if (!guard) return own;
  // Recorded on the request: the Rent confirmation promises the guard only if it fits with this script.
  const base = own !== undefined || !hashId ? own : await serverOnstart(hashId, lookUp);
  if (base !== undefined) guard.onstart = base;
  return base;
}

async function serverOnstart(hashId: string, lookUp: (hashId: string) => Promise<ServerTemplateOnstart | undefined>): Promise<string | undefined> {
  let t: ServerTemplateOnstart | undefined;
  try {
    t = await lookUp(hashId);
  } catch (e) {
    throw new GuardSetupError(
      l10n.t(
        'The start script of the service\'s template {0} could not be read ({1}), and the idle guard must be added to it, not replace it. Try again, or set "guard": false.',
        hashId,
        e instanceof Error ? e.message : 'unknown error',
      ),
    );
  }
  if (!t)
    throw new GuardSetupError(
      l10n.t('The service has no template {0}, so its start script cannot be kept with the idle guard. Check template_hash_id.', hashId),
    );
  return scriptOf(t);
}

/** A service template's own start script; undefined when it has none (blank counts as none). */
export function scriptOf(t: ServerTemplateOnstart): string | undefined {
  return typeof t.onstart === 'string' && t.onstart.trim() ? t.onstart : undefined;
}

/**
 * What the Rent confirmation says the guard will do, e.g. "stops it after 30 idle minutes; caps
 * 6 h / $10", from the onstart that will really be sent (`onstart`, by default what baseOnstart
 * recorded: the template's own or the server template's): a default guard that does not fit is
 * not promised, and one the template asked for says the rent will fail.
 */
export function guardSummary(guard: GuardRequest | undefined, dphTotal: number, onstart: string | undefined = guard?.onstart): string {
  const none = l10n.t('Idle guard: none (nothing stops this instance when it is idle; stop or destroy it yourself).');
  if (!guard) return none;
  let form: OnstartForm;
  try {
    form = composeOnstart(onstart, guard.plan, { apiUrl: guard.apiUrl, dphTotal }).form;
  } catch (e) {
    if (!(e instanceof GuardSetupError)) throw e;
    return guard.explicit
      ? l10n.t('Idle guard: cannot be installed, so nothing will be rented: {0}', e.message)
      : l10n.t('{0} The onstart script leaves no room for the default guard: {1}', none, e.message);
  }
  const p = guard.plan;
  const caps = [p.maxHours !== undefined ? `${p.maxHours} h` : '', p.maxSpend !== undefined ? `$${p.maxSpend}` : ''].filter(Boolean);
  const cap = capOf(p, dphTotal);
  const days = stoppedDaysOf(p);
  const ssh = p.keepWhileSsh ? l10n.t(', no SSH session') : '';
  const head = p.group
    ? p.action === 'destroy'
      ? l10n.t(
          'Idle guard: destroys the group when every member has been idle for {0} minutes (GPUs below {1} %{2}), even with VS Code closed',
          p.idleMinutes,
          p.gpuUtilBelow,
          ssh,
        )
      : l10n.t(
          'Idle guard: stops the group when every member has been idle for {0} minutes (GPUs below {1} %{2}), even with VS Code closed',
          p.idleMinutes,
          p.gpuUtilBelow,
          ssh,
        )
    : p.action === 'destroy'
      ? l10n.t('Idle guard: destroys it after {0} idle minutes (GPUs below {1} %{2}), even with VS Code closed', p.idleMinutes, p.gpuUtilBelow, ssh)
      : l10n.t('Idle guard: stops it after {0} idle minutes (GPUs below {1} %{2}), even with VS Code closed', p.idleMinutes, p.gpuUtilBelow, ssh);
  return (
    head +
    (caps.length && cap
      ? p.group
        ? l10n.t('; caps {0} for the whole group (at the latest after {1} h)', caps.join(' / '), (cap.seconds / 3600).toFixed(1))
        : l10n.t('; caps {0} (at the latest after {1} h)', caps.join(' / '), (cap.seconds / 3600).toFixed(1))
      : '') +
    '.' +
    (days
      ? days === 1
        ? l10n.t(
            " Destroyed after 1 day stopped, with its disk and all data (a warning with Keep comes a day before; this template's guard.destroyAfterStoppedDays, which renting agrees to).",
          )
        : l10n.t(
            " Destroyed after {0} days stopped, with its disk and all data (a warning with Keep comes a day before; this template's guard.destroyAfterStoppedDays, which renting agrees to).",
            days,
          )
      : '') +
    (form === 'all-compressed' ? l10n.t(' The image must have base64 and gzip (most do), or neither the guard nor the onstart script runs.') : '')
  );
}
