// What every command and view is given: the one Services object, built by createServices()
// (src/app/createServices.ts, the composition root). Only the interface lives here, below every
// feature's VS Code part, so features depend on what Services offers, never on how it is built.
// Its members are ports (src/core/storePorts.ts, guardPort.ts, ports.ts), never a feature's class,
// and a function takes the slice it uses: Pick<Services, 'api' | 'instances' | 'log'>.
import type * as vscode from 'vscode';
import type { Instance, Logger, ServerTemplate, ServiceApi } from '../../api/types';
import type { Event, Disposable } from '../events';
import type { ApiKeyPort, ConnectionInfo, KeyValueStore, SecretStore } from '../ports';
import type { ConnectionState, DemoEndpoint } from '../connection';
import type { CreditPort, InstanceGonePort, InstancesPort, LogsPort, OffersPort } from '../storePorts';
import type { GuardPort } from '../guardPort';
import type { GroupCost } from '../rates';
import type { Settings } from './settings';
import type { InstanceMarks } from '../instanceMarks';

/**
 * Everything a command or view needs, created once by createServices (the composition root).
 * One type: no feature downcasts to reach more.
 */
export interface Services {
  readonly log: Logger;
  /** The client for the current connection. Rejects with a clear error when signed out. */
  api(): Promise<ServiceApi>;
  connection(): ConnectionInfo;
  readonly onDidChangeConnection: Event<ConnectionInfo>;
  /** The one way the API key is saved or cleared (checked, stored, then the connection). */
  readonly apiKey: ApiKeyPort;
  /** URL, API key, 2FA session key and demo endpoint behind connection(). */
  readonly connectionState: ConnectionState;
  /** The instance list, refreshed by one poller. */
  readonly instances: InstancesPort;
  /** The offer search state (query, results, error). */
  readonly offers: OffersPort;
  /** The account credit (from the instance records, else the user record). */
  readonly credit: CreditPort;
  /** The idle guard of each instance as VS Code sees it, and the warnings before it acts. */
  readonly guard: GuardPort;
  /** The instance logs Show Logs opened (text, follow state). */
  readonly logs: LogsPort;
  /** Drops every per-instance record kept in globalState once its instance is known to be gone. */
  readonly instanceGone: InstanceGonePort;
  /** Service templates seen by Browse Server Templates, by hash id (read-only template documents render them). */
  readonly serverTemplates: Map<string, ServerTemplate>;
  readonly secrets: SecretStore;
  readonly globalState: KeyValueStore;
  readonly workspaceState: KeyValueStore;
  /** The current settings (read again after every change). */
  settings(): Settings;
  /** 2FA session key: set after a 2FA login, cleared on sign-out or when it expires. */
  setSessionKey(key: string | undefined): Promise<void>;
  /** Ask the Account view to fetch again (after a 2FA change). */
  refreshAccount(): void;
  readonly onDidRequestAccountRefresh: Event<void>;
  /** Things to dispose when the extension deactivates. */
  track(d: Disposable): void;
  /** Resolves once the stored keys have been read. */
  readonly ready: Promise<void>;
  /** Where media/ lives (webviews). */
  readonly extensionUri: vscode.Uri;
  /** Reveal the "GPU Rental" output channel. */
  showLog(preserveFocus?: boolean): void;
  /** Switch to (or leave, with undefined) the in-process simulator. */
  setDemo(endpoint: DemoEndpoint | undefined, stop?: () => Promise<void>): Promise<void>;
  /** Stop the demo simulator if one runs. */
  readonly demoStop: (() => Promise<void>) | undefined;
  /**
   * Money already spent, as sentences: "Cost so far: …" for an instance, "Spent today: …" (the
   * service's own total where an instance carries one, else an estimate from the rates seen).
   * Undefined until the first instance list has loaded the ledger (dist/costLedger.js).
   */
  /** Finished sentences: an instance's cost so far, a group's (its members summed), spent today. */
  readonly costs: { line(i: Instance): string | undefined; group(members: readonly Instance[]): GroupCost | undefined; today(): string | undefined };
  /** Notes features pin on instance rows (src/core/instanceMarks.ts), shown by the Instances view. */
  readonly marks: InstanceMarks;
}
