// Which service we talk to and with which bearer token. Plain TypeScript so the
// precedence rules (session key > API key > loopback-only demo key) are unit-testable.
import type { Credentials } from '../api/types';
import type { ConnectionInfo } from './ports';
import { DEFAULT_BASE_URL } from '../api/defaults';
import { Emitter } from './events';

import { isLoopbackHost, isLoopbackUrl } from '../api/loopback';
import * as l10n from '@vscode/l10n';

export { isLoopbackUrl };

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/** https anywhere; http only on loopback (the simulator, a local proxy). Trailing slashes removed. */
export function checkBaseUrl(raw: string | undefined): BaseUrlCheck {
  const text = (raw ?? '').trim() || DEFAULT_BASE_URL;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return {
      ok: false,
      message: l10n.t('The setting gpuRental.apiBaseUrl ("{0}") is not a valid URL. Fix it or reset it to {1}.', text, DEFAULT_BASE_URL),
    };
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) {
    return {
      ok: false,
      message: l10n.t(
        'The setting gpuRental.apiBaseUrl must use https (plain http is only allowed for 127.0.0.1, localhost or ::1), so your API key is not sent in clear text. Change it to an https URL such as {0}.',
        DEFAULT_BASE_URL,
      ),
    };
  }
  if (u.username || u.password) {
    return { ok: false, message: l10n.t('The setting gpuRental.apiBaseUrl must not contain a user name or password. Remove them from the URL.') };
  }
  return { ok: true, url: u.origin + u.pathname.replace(/\/+$/, '') };
}

export interface DemoEndpoint {
  url: string;
  apiKey: string;
}

/**
 * The live connection. `generation` changes whenever the token or the URL changes, so
 * callers can drop responses that belong to an older connection.
 */
export class ConnectionState implements Credentials {
  /** The URL setting, or how to read it at its first use (reading a setting costs the extension host a lookup). */
  private baseUrlSetting: string | undefined | (() => string | undefined);
  private apiKey: string | undefined;
  private sessionKey: string | undefined;
  private envKey: string | undefined;
  private demoEndpoint: DemoEndpoint | undefined;
  /** checkBaseUrl of the setting, kept until the setting changes: info() and token() ask several times per call. */
  private checked: { setting: string | undefined; check: BaseUrlCheck } | undefined;
  private gen = 0;
  private readonly changed = new Emitter<ConnectionInfo>();
  readonly onDidChange = this.changed.event;
  /** Fired once when an expired 2FA session key was dropped in favour of the API key. */
  private readonly sessionDropped = new Emitter<void>();
  readonly onDidDropSession = this.sessionDropped.event;

  constructor(init: { baseUrl?: string | (() => string | undefined); apiKey?: string; sessionKey?: string; envDemoKey?: string } = {}) {
    this.baseUrlSetting = init.baseUrl;
    this.apiKey = init.apiKey || undefined;
    this.sessionKey = init.sessionKey || undefined;
    this.envKey = init.envDemoKey || undefined;
  }

  get generation(): number {
    return this.gen;
  }

  private setting(): string | undefined {
    if (typeof this.baseUrlSetting === 'function') this.baseUrlSetting = this.baseUrlSetting();
    return this.baseUrlSetting;
  }

  /** The base URL check for the current setting (demo mode always uses the loopback simulator). */
  baseUrl(): BaseUrlCheck {
    if (this.demoEndpoint) return { ok: true, url: this.demoEndpoint.url };
    const setting = this.setting();
    if (!this.checked || this.checked.setting !== setting) this.checked = { setting, check: Object.freeze(checkBaseUrl(setting)) };
    return this.checked.check;
  }

  private usingEnvKey(): boolean {
    return !this.demoEndpoint && !this.apiKey && this.effectiveApiKey() !== undefined;
  }

  /** The API key in effect (stored key first; the demo env key only against loopback). */
  private effectiveApiKey(): string | undefined {
    if (this.demoEndpoint) return this.demoEndpoint.apiKey;
    if (this.apiKey) return this.apiKey;
    const b = this.baseUrl();
    if (this.envKey && b.ok && isLoopbackUrl(b.url)) return this.envKey;
    return undefined;
  }

  token(): string | undefined {
    // Without any key there is no token whatever the URL says (and the setting need not be read).
    if (!this.demoEndpoint && !this.sessionKey && !this.apiKey && !this.envKey) return undefined;
    if (!this.baseUrl().ok) return undefined;
    if (!this.demoEndpoint && this.sessionKey) return this.sessionKey;
    return this.effectiveApiKey();
  }

  onAuthFailure(): boolean {
    if (this.demoEndpoint || !this.sessionKey) return false;
    this.sessionKey = undefined;
    this.bump();
    this.sessionDropped.fire();
    return this.effectiveApiKey() !== undefined;
  }

  info(): ConnectionInfo {
    const b = this.baseUrl();
    return {
      baseUrl: b.ok ? b.url : (this.setting() ?? DEFAULT_BASE_URL),
      signedIn: this.token() !== undefined,
      // `npm run demo` signs in with the loopback-only env key: that is the simulator too.
      demo: this.demoEndpoint !== undefined || this.usingEnvKey(),
      session: !this.demoEndpoint && !!this.sessionKey && b.ok,
    };
  }

  /** Every secret this connection holds, for the redacting logger. */
  knownSecrets(): string[] {
    return [this.apiKey, this.sessionKey, this.envKey, this.demoEndpoint?.apiKey].filter((s): s is string => !!s);
  }

  hasStoredApiKey(): boolean {
    return !!this.apiKey;
  }

  isDemo(): boolean {
    return this.demoEndpoint !== undefined;
  }

  setBaseUrl(url: string | undefined): void {
    if (url === this.setting()) return;
    this.baseUrlSetting = url;
    this.bump();
  }
  setApiKey(key: string | undefined): void {
    if ((key || undefined) === this.apiKey) return;
    this.apiKey = key || undefined;
    this.bump();
  }
  setSessionKey(key: string | undefined): void {
    if ((key || undefined) === this.sessionKey) return;
    this.sessionKey = key || undefined;
    this.bump();
  }
  setDemo(d: DemoEndpoint | undefined): void {
    this.demoEndpoint = d;
    this.bump();
  }

  private bump(): void {
    this.gen++;
    this.changed.fire(this.info());
  }

  dispose(): void {
    this.changed.dispose();
    this.sessionDropped.dispose();
  }
}

/** Shown wherever demo mode is on (views, notifications). */
export function demoMessage(): string {
  return l10n.t('Demo mode: simulated account, no real machines or money.');
}
