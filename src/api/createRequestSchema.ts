// The creation request (PUT /api/v0/asks/{offer}/) checked before anything is rented: every
// problem at once, each with its field path and what to write instead. The template layer
// reuses it.
import * as z from 'zod/mini';
import type { CreateInstanceRequest } from './instanceTypes';
import { stripNulls, validateWith } from './schemaBasics';
import * as l10n from '@vscode/l10n';

export const ONSTART_MAX = 4048;
export const RUNTYPES = ['ssh', 'ssh_direct', 'ssh_proxy', 'jupyter', 'jupyter_direct', 'jupyter_proxy', 'args'] as const;
/** Tokens of the CLI's space-separated runtype form (`ssh_direc ssh_proxy`), which the service also accepts. */
const RUNTYPE_TOKENS: ReadonlySet<string> = new Set([...RUNTYPES, 'ssh_direc', 'jupyter_direc']);

const PORT_KEY_RE = /^-p\s+(\d{1,5}):(\d{1,5})(\/(tcp|udp))?$/;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const createTypes = z.looseObject({
  image: z.optional(z.string({ error: () => l10n.t('must be a string (the container image, e.g. pytorch/pytorch:latest)') })),
  template_hash_id: z.optional(z.string({ error: () => l10n.t('must be a string (the template hash id)') })),
  label: z.optional(z.string({ error: () => l10n.t('must be a string') })),
  disk: z.optional(z.number({ error: () => l10n.t('must be a number of GB') })),
  runtype: z.optional(z.string({ error: () => l10n.t('must be a string') })),
  target_state: z.optional(z.enum(['running', 'stopped'], { error: () => l10n.t("must be 'running' or 'stopped'") })),
  price: z.optional(z.number({ error: () => l10n.t('must be a number of dollars per hour') })),
  env: z.optional(z.unknown()),
  onstart: z.optional(z.string(l10n.t('must be a string (shell commands)'))),
  args_str: z.optional(z.string({ error: () => l10n.t('must be a string') })),
  use_jupyter_lab: z.optional(z.boolean({ error: () => l10n.t('must be true or false') })),
  jupyter_dir: z.optional(z.string({ error: () => l10n.t('must be a string') })),
  python_utf8: z.optional(z.boolean({ error: () => l10n.t('must be true or false') })),
  lang_utf8: z.optional(z.boolean({ error: () => l10n.t('must be true or false') })),
  image_login: z.optional(z.string({ error: () => l10n.t('must be a string of registry flags') })),
  cancel_unavail: z.optional(z.boolean({ error: () => l10n.t('must be true or false') })),
  vm: z.optional(z.boolean({ error: () => l10n.t('must be true or false') })),
  volume_info: z.optional(z.unknown()),
});

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** What a group's overlay network may be called (src/groups/ names it). */
export const OVERLAY_NAME_RE = /^[A-Za-z0-9._-]{1,64}$/;

function envProblems(env: unknown): string[] {
  const out: string[] = [];
  if (typeof env === 'string')
    return [
      'env: must be an object like {"NAME": "value"}, not a string of flags; write each variable as its own key (the "-e NAME=value" form is for templates, not for this field)',
    ];
  if (Array.isArray(env)) return ['env: must be an object like {"NAME": "value"}, not an array'];
  if (!isRecord(env)) return ['env: must be an object like {"NAME": "value"}'];
  for (const [key, value] of Object.entries(env)) {
    const k = key.trim();
    // JSON-quoted: a key with a quote or a control character stays one readable, parseable path.
    const path = `env[${JSON.stringify(key)}]`;
    if (k.startsWith('-e ') || k.startsWith('-e=') || /^--env[ =]/.test(k)) {
      out.push(`${path}: looks like a flag string "-e NAME=value"; use the variable name as the key and its value as the value, e.g. {"NAME": "value"}`);
      continue;
    }
    if (k.startsWith('-p')) {
      const m = PORT_KEY_RE.exec(k);
      if (!m) out.push(l10n.t('{0}: a port mapping key must look like "-p 8080:8080" (host:container)', path));
      else if (Number(m[1]) > 65535 || Number(m[2]) > 65535 || Number(m[1]) < 1 || Number(m[2]) < 1)
        out.push(l10n.t('{0}: port numbers must be between 1 and 65535', path));
      if (value !== '1') out.push(l10n.t('{0}: a port mapping must have the value "1" (the string), not {1}', path, JSON.stringify(value)));
      continue;
    }
    if (k.startsWith('-n ')) {
      // Joins the overlay network of that name at creation (the official CLI's --env "-n NAME").
      if (!OVERLAY_NAME_RE.test(k.slice(3).trim())) out.push(l10n.t('{0}: an overlay network name is 1 to 64 letters, digits, ".", "_" or "-"', path));
      if (value !== '1') out.push(l10n.t('{0}: joining an overlay network must have the value "1" (the string), not {1}', path, JSON.stringify(value)));
      continue;
    }
    if (k.startsWith('-')) {
      out.push(l10n.t('{0}: flag-style keys are not allowed here; only "-p host:container" port mappings, "-n NETWORK" and variable names', path));
      continue;
    }
    if (k.includes('=')) {
      out.push(`${path}: a variable name cannot contain "="; use {"NAME": "value"} instead of "NAME=value"`);
      continue;
    }
    if (!ENV_NAME_RE.test(k)) out.push(l10n.t('{0}: not a valid variable name (letters, digits and _; not starting with a digit)', path));
    if (typeof value !== 'string') out.push(l10n.t('{0}: the value must be a string (wrap numbers and booleans in quotes)', path));
  }
  return out;
}

function runtypeProblem(runtype: string): string | undefined {
  const tokens = runtype.trim().split(/\s+/).filter(Boolean);
  if (tokens.length === 0 || tokens.some((t) => !RUNTYPE_TOKENS.has(t)))
    return l10n.t('runtype: unknown launch mode "{0}"; use one of {1}', runtype, RUNTYPES.join(', '));
  if (tokens.length > 1 && tokens.includes('args')) return l10n.t('runtype: "args" cannot be combined with other launch modes');
  return undefined;
}

/**
 * Every problem of a creation request at once, each prefixed with its field path. `interruptible`
 * says whether the caller rents a bid (interruptible) offer: then `price` is required, and it must
 * be absent for on-demand. Empty array = valid. The template layer reuses this.
 */
export function validateCreateRequest(req: CreateInstanceRequest | Record<string, unknown>, opts: { interruptible: boolean }): string[] {
  if (!isRecord(req)) return [l10n.t('the creation request must be an object')];
  const r = stripNulls(req as Record<string, unknown>);
  const problems = validateWith(createTypes, r);
  const has = (k: string) => r[k] !== undefined;

  const image = typeof r.image === 'string' ? r.image.trim() : '';
  const tpl = typeof r.template_hash_id === 'string' ? r.template_hash_id.trim() : '';
  if (!image && !tpl) problems.push(l10n.t('image: required unless template_hash_id is given (the container image to run)'));

  if (typeof r.onstart === 'string' && r.onstart.length > ONSTART_MAX)
    problems.push(
      l10n.t(
        'onstart: {0} characters, the service allows at most {1}; move the script into the image or compress and encode it',
        r.onstart.length,
        ONSTART_MAX,
      ),
    );

  if (has('env')) problems.push(...envProblems(r.env));

  if (typeof r.runtype === 'string') {
    const p = runtypeProblem(r.runtype);
    if (p) problems.push(p);
  }
  if (has('args_str') && !(typeof r.runtype === 'string' && r.runtype.trim() === 'args'))
    problems.push(l10n.t('args_str: is used only with runtype "args"; set runtype to "args" or remove args_str'));

  if (typeof r.disk === 'number' && !(Number.isFinite(r.disk) && r.disk > 0)) problems.push(l10n.t('disk: must be more than 0 GB (the default is 8)'));

  if (opts.interruptible) {
    if (!has('price')) problems.push(l10n.t('price: required for an interruptible (bid) instance; without it the service silently rents on-demand'));
    else if (typeof r.price === 'number' && !(Number.isFinite(r.price) && r.price > 0))
      problems.push(l10n.t('price: the bid must be more than 0 dollars per hour'));
  } else if (has('price')) {
    problems.push(l10n.t('price: only for interruptible (bid) instances; remove it for an on-demand instance'));
  }

  if (has('volume_info')) {
    const v = r.volume_info;
    if (!isRecord(v)) problems.push('volume_info: must be an object {volume_id, mount_path}');
    else {
      if (!(typeof v.volume_id === 'number' && Number.isInteger(v.volume_id) && v.volume_id > 0))
        problems.push(l10n.t('volume_info.volume_id: required, the id of an existing volume (a positive whole number)'));
      if (!(typeof v.mount_path === 'string' && v.mount_path.startsWith('/')))
        problems.push(l10n.t('volume_info.mount_path: required, an absolute path inside the instance such as /workspace/data'));
    }
  }
  return problems;
}
