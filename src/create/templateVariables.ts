// Variable expansion in template strings: ${workspaceFolder}, ${workspaceFolderBasename},
// ${env:NAME} and ${secret:NAME}. Expanded values (secrets especially) never appear in
// problem messages: only the variable names do.
import { pathKey, setOwn, type JsonPath } from './jsonPath';
import * as l10n from '@vscode/l10n';

export interface VariableContext {
  /** File-system path of the workspace folder the template belongs to. */
  workspaceFolder?: string;
  env: Record<string, string | undefined>;
  /** Template secrets, stored in SecretStorage under `secret.NAME`. */
  secret(name: string): Promise<string | undefined>;
}

export interface VariableProblem {
  path: JsonPath;
  message: string;
}

const VAR = /\$\{([^}]*)\}/g;
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Where ${secret:NAME} is kept in the extension's SecretStore. */
export function templateSecretKey(name: string): string {
  return `secret.${name}`;
}

function basename(p: string): string {
  const parts = p.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? p;
}

export async function expandString(s: string, ctx: VariableContext, path: JsonPath, problems: VariableProblem[]): Promise<string> {
  const names = [...s.matchAll(VAR)].map((m) => m[1] ?? '');
  if (names.length === 0) return s;
  const values = new Map<string, string>();
  for (const name of new Set(names)) {
    const v = await resolveVariable(name, ctx, path, problems);
    if (v !== undefined) values.set(name, v);
  }
  return s.replace(VAR, (whole, name: string) => values.get(name) ?? whole);
}

async function resolveVariable(name: string, ctx: VariableContext, path: JsonPath, problems: VariableProblem[]): Promise<string | undefined> {
  if (name === 'workspaceFolder' || name === 'workspaceFolderBasename') {
    if (!ctx.workspaceFolder) {
      problems.push({ path, message: `\${${name}} needs an open workspace folder. Open the folder that contains the template.` });
      return undefined;
    }
    return name === 'workspaceFolder' ? ctx.workspaceFolder : basename(ctx.workspaceFolder);
  }
  if (name.startsWith('env:')) {
    const key = name.slice(4);
    const v = ctx.env[key];
    if (v === undefined) {
      problems.push({
        path,
        message: `Environment variable ${key} is not set (used as \${env:${key}}). Set it before starting VS Code, or use \${secret:${key}}.`,
      });
    }
    return v;
  }
  if (name.startsWith('secret:')) {
    const key = name.slice(7);
    if (!SECRET_NAME.test(key)) {
      problems.push({ path, message: l10n.t('"{0}" is not a valid secret name. Use letters, digits, "_", "-" and ".".', key) });
      return undefined;
    }
    const v = await ctx.secret(key);
    if (v === undefined) {
      problems.push({ path, message: l10n.t('Template secret {0} is not set. Run "GPU Rental: Set Template Secret" and enter {1}.', key, key) });
    }
    return v;
  }
  problems.push({
    path,
    message: `Unknown variable \${${name}}. Use \${workspaceFolder}, \${workspaceFolderBasename}, \${env:NAME} or \${secret:NAME}.`,
  });
  return undefined;
}

/**
 * Where each expanded object key came from: pathKey(expanded path) -> the path as written.
 * Problems found on the expanded value are shown at the path as written, so an expanded
 * key (which may hold a secret) never appears in a problem.
 */
export type KeyOrigins = Map<string, JsonPath>;

/** Expands every string in a JSON value (object keys included, for env port keys like "-p ${env:PORT}:8080"). */
export async function expandValue(
  value: unknown,
  ctx: VariableContext,
  problems: VariableProblem[],
  path: JsonPath = [],
  origins?: KeyOrigins,
  expandedPath: JsonPath = path,
): Promise<unknown> {
  if (typeof value === 'string') return expandString(value, ctx, path, problems);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out.push(await expandValue(value[i], ctx, problems, [...path, i], origins, [...expandedPath, i]));
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = await expandString(k, ctx, [...path, k], problems);
      const at = [...expandedPath, key];
      if (key !== k) origins?.set(pathKey(at), [...path, k]);
      setOwn(out, key, await expandValue(v, ctx, problems, [...path, k], origins, at));
    }
    return out;
  }
  return value;
}

/** The path as written for a path into the expanded value (see KeyOrigins). */
export function writtenPath(path: JsonPath, origins: KeyOrigins): JsonPath {
  for (let n = path.length; n > 0; n--) {
    const from = origins.get(pathKey(path.slice(0, n)));
    if (from) return [...from, ...path.slice(n)];
  }
  return path;
}
