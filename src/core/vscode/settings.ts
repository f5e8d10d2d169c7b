// Every setting the extension reads, typed, with its default and bounds, read in one place.
// `remote.SSH.configFile` belongs to Remote-SSH and is only ever read.
import * as vscode from 'vscode';
import { DEFAULT_TEMPLATE_GLOB } from '../../create/templateGlob';
import { userOnly } from '../userOnlySettings';
import type { GuardDefaults } from '../../guard/installed';
import { guardDefaultsFrom } from '../../guard/settingsScope';
import type { ProxySettings } from '../../api/transport';

export interface Settings {
  apiBaseUrl: string | undefined;
  pollIntervalSeconds: number;
  hiddenPollIntervalSeconds: number;
  lowCreditWarningHours: number;
  ssh: {
    manageConfig: boolean;
    identityFile?: string;
    /** remote.SSH.configFile: the user's SSH config when it is not ~/.ssh/config. */
    userConfigFile?: string;
  };
  templates: {
    glob: string;
    maxAttempts: number;
  };
  /** The idle guard for templates without a `guard` block and for Rent This Offer. */
  guard: GuardDefaults;
  budget: {
    /** Dollars per calendar month (UTC); 0: no budget. User settings only. */
    monthly: number;
    /** At 100 %: only warn, or offer to stop the instances with an idle guard. User settings only. */
    onExceeded: 'warn' | 'stopGuarded';
  };
  /** A stopped instance older than this many days is flagged for the storage it still bills. */
  stoppedStorageDays: number;
  logs: {
    /** Lines Show Logs asks for. */
    tail: number;
    /** Seconds between fetches while a followed log is visible. */
    followIntervalSeconds: number;
  };
}

/** The user's own gpuRental.apiBaseUrl (USER_ONLY_SETTINGS). */
const apiBaseUrlOf = (c: vscode.WorkspaceConfiguration): string | undefined => userOnly(c.inspect<string>('apiBaseUrl')) || undefined;

/**
 * gpuRental.apiBaseUrl alone, for the connection. Each setting read is a configuration lookup that
 * takes about half a millisecond in the extension host: the connection does not read them all.
 */
export function readApiBaseUrl(): string | undefined {
  return apiBaseUrlOf(vscode.workspace.getConfiguration('gpuRental'));
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('gpuRental');
  const poll = Math.max(5, Number(c.get<number>('pollIntervalSeconds', 10)) || 10);
  const hidden = Math.max(poll, Number(c.get<number>('hiddenPollIntervalSeconds', 60)) || 60);
  // Where the key goes and which files are written: the user's own settings only (USER_ONLY_SETTINGS).
  const identityFile = userOnly(c.inspect<string>('ssh.identityFile'))?.trim();
  const remoteSsh = vscode.workspace.getConfiguration('remote.SSH');
  const userConfigFile = userOnly(remoteSsh.inspect<string>('configFile'))?.trim();
  const attempts = c.get<number>('createMaxAttempts') ?? 3;
  return {
    apiBaseUrl: apiBaseUrlOf(c),
    pollIntervalSeconds: poll,
    hiddenPollIntervalSeconds: hidden,
    lowCreditWarningHours: Math.max(0, Number(c.get<number>('lowCreditWarningHours', 12)) || 0),
    ssh: {
      manageConfig: userOnly(c.inspect<boolean>('ssh.manageConfig')) ?? true,
      ...(identityFile ? { identityFile } : {}),
      ...(userConfigFile ? { userConfigFile } : {}),
    },
    templates: {
      glob: c.get<string>('templateGlob')?.trim() || DEFAULT_TEMPLATE_GLOB,
      maxAttempts: Number.isInteger(attempts) && attempts >= 1 && attempts <= 10 ? attempts : 3,
    },
    // A workspace may make the guard stricter, never turn it off or loosen it (src/guard/settingsScope.ts).
    guard: guardDefaultsFrom(c.inspect('guard.enabled'), c.inspect('guard.idleMinutes'), c.inspect('guard.gpuUtilBelow')),
    budget: {
      monthly: Math.max(0, Number(userOnly(c.inspect<number>('budget.monthly'))) || 0),
      onExceeded: userOnly(c.inspect<string>('budget.onExceeded')) === 'stopGuarded' ? 'stopGuarded' : 'warn',
    },
    stoppedStorageDays: Math.max(0, Number(c.get<number>('stoppedStorageDays', 3)) || 0),
    logs: {
      tail: Math.min(100_000, Math.max(1, Math.floor(Number(c.get<number>('logs.tail', 1000)) || 1000))),
      followIntervalSeconds: Math.max(3, Number(c.get<number>('logs.followIntervalSeconds', 10)) || 10),
    },
  };
}

/**
 * VS Code's own proxy settings for the API client: `http.proxy` (else HTTPS_PROXY/HTTP_PROXY
 * from the environment), `http.proxyStrictSSL`, `http.noProxy`; `http.proxySupport: off` means direct.
 */
export function readProxySettings(): ProxySettings | null {
  // The user's own values only: a repository's settings must not route the API key through its proxy
  // or turn certificate checks off.
  const h = vscode.workspace.getConfiguration('http');
  if (userOnly(h.inspect<string>('proxySupport')) === 'off') return null;
  const url = userOnly(h.inspect<string>('proxy'))?.trim();
  const noProxy = (userOnly(h.inspect<string[]>('noProxy')) ?? []).filter((x) => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
  return {
    ...(url ? { url } : {}),
    strictSSL: userOnly(h.inspect<boolean>('proxyStrictSSL')) !== false,
    ...(noProxy.length ? { noProxy } : {}),
  };
}

/** A proxy URL for a log line: scheme, host and port only, never its user or password. */
export function describeProxy(url: string | undefined): string {
  if (!url) return 'the proxy from HTTPS_PROXY/HTTP_PROXY, if set';
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the proxy in http.proxy (not a valid URL)';
  }
}
