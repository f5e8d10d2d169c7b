// Every setting the extension reads, typed, with its default and bounds, read in one place:
// readSettings() for the plumbing's own, gpuRentalSetting() for the keys a feature gives meaning to
// (the idle guard's in src/guard/vscode/guardSettings.ts, the template glob in
// src/create/vscode/templateGlobSetting.ts). `remote.SSH.configFile` belongs to Remote-SSH and is only ever read.
import * as vscode from 'vscode';
import { userOnly } from '../userOnlySettings';
import { clampSetting, effectiveSetting, tightenOnly, type BoundedSetting } from '../settingBounds';
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
    maxAttempts: number;
  };
  budget: {
    /** Dollars per calendar month (UTC); 0: no budget. User settings only. */
    monthly: number;
    /** At 100 %: only warn, or offer to stop the instances with an idle guard. User settings only. */
    onExceeded: 'warn' | 'stopGuarded';
  };
  /** What agents (the language-model tools) may rent. User settings only. */
  agent: {
    /** $/h (disk included) above which an agent's rent, start or accepted price increase is refused; 0: no cap. */
    maxPricePerHour: number;
  };
  /** A stopped instance older than this many days is flagged for the storage it still bills. */
  stoppedStorageDays: number;
  /** Calls by other extensions and scripts (src/core/unattended.ts). User settings only. */
  scripting: {
    /** Command arguments may skip a confirmation of spending or destroying. Off by default. */
    allowUnattended: boolean;
  };
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

/** One gpuRental.* setting as VS Code has it in each scope, for the feature that owns its meaning. */
export function gpuRentalSetting<T>(key: string): { globalValue?: T; workspaceValue?: T; workspaceFolderValue?: T; value: T | undefined } {
  const c = vscode.workspace.getConfiguration('gpuRental');
  return { ...c.inspect<T>(key), value: c.get<T>(key) };
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('gpuRental');
  // Every number within its floor and ceiling (src/core/settingBounds.ts).
  const num = (key: BoundedSetting) => effectiveSetting(key, c.inspect(key));
  const poll = num('pollIntervalSeconds');
  const hidden = Math.max(poll, num('hiddenPollIntervalSeconds'));
  // Where the key goes and which files are written: the user's own settings only (USER_ONLY_SETTINGS).
  const identityFile = userOnly(c.inspect<string>('ssh.identityFile'))?.trim();
  const remoteSsh = vscode.workspace.getConfiguration('remote.SSH');
  const userConfigFile = userOnly(remoteSsh.inspect<string>('configFile'))?.trim();
  return {
    apiBaseUrl: apiBaseUrlOf(c),
    pollIntervalSeconds: poll,
    hiddenPollIntervalSeconds: hidden,
    // Money reminders: a workspace may make them stricter, never later or off.
    lowCreditWarningHours: tightenOnly('lowCreditWarningHours', c.inspect('lowCreditWarningHours'), 'larger'),
    ssh: {
      manageConfig: userOnly(c.inspect<boolean>('ssh.manageConfig')) ?? true,
      ...(identityFile ? { identityFile } : {}),
      ...(userConfigFile ? { userConfigFile } : {}),
    },
    templates: {
      maxAttempts: num('createMaxAttempts'),
    },
    budget: {
      monthly: clampSetting('budget.monthly', userOnly(c.inspect<number>('budget.monthly'))),
      onExceeded: userOnly(c.inspect<string>('budget.onExceeded')) === 'stopGuarded' ? 'stopGuarded' : 'warn',
    },
    agent: {
      maxPricePerHour: clampSetting('agent.maxPricePerHour', userOnly(c.inspect<number>('agent.maxPricePerHour'))),
    },
    stoppedStorageDays: tightenOnly('stoppedStorageDays', c.inspect('stoppedStorageDays'), 'smaller'),
    scripting: {
      allowUnattended: userOnly(c.inspect<boolean>('scripting.allowUnattended')) === true,
    },
    logs: {
      tail: num('logs.tail'),
      followIntervalSeconds: num('logs.followIntervalSeconds'),
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
