// Show Logs, Refresh Logs, Follow Logs / Stop Following: an instance's container or daemon log
// in a read-only document (src/logs/vscode/logDocuments.ts renders it from services.logs).
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { LOGS_SCHEME, logKeyOf, logPath } from '../../logStore';
import { type LogKey } from '../../../core/storePorts';
import { instanceName } from '../../../core/instanceWords';
import { instanceIdOf, positiveId } from '../../../core/instanceRef';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { background } from '../../../core/background';
import { CommandFailure, fixByCommand } from '../../../core/vscode/commandFailure';

/** What scripts may pass instead of a node or id: `{ id, daemon?, tail?, filter?, resultUrl? }`. */
interface LogArgs {
  id?: unknown;
  instanceId?: unknown;
  daemon?: unknown;
  tail?: unknown;
  filter?: unknown;
  resultUrl?: unknown;
}

function isLogArgs(arg: unknown): arg is LogArgs {
  return typeof arg === 'object' && arg !== null && ('daemon' in arg || 'tail' in arg || 'filter' in arg || 'resultUrl' in arg);
}

async function chooseLog(tail: number): Promise<Pick<LogKey, 'daemon' | 'filter'> | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: vscode.l10n.t('$(output) Container log'),
        description: vscode.l10n.t('last {0} lines', tail),
        detail: vscode.l10n.t('What the container printed: start-up, the onstart script, your programs.'),
        value: 'container' as const,
      },
      {
        label: vscode.l10n.t('$(filter) Container log, matching lines only…'),
        description: vscode.l10n.t('grep on the host'),
        detail: vscode.l10n.t('Only lines matching a pattern, e.g. error|Traceback.'),
        value: 'filter' as const,
      },
      {
        label: vscode.l10n.t('$(server-process) Daemon log'),
        description: vscode.l10n.t('last {0} lines', tail),
        detail: vscode.l10n.t("The host's side: image pull, container create, start and exit (why an instance failed to start)."),
        value: 'daemon' as const,
      },
    ],
    { title: vscode.l10n.t('GPU Rental: Show Instance Logs'), placeHolder: vscode.l10n.t('Which log?') },
  );
  if (!picked) return undefined;
  if (picked.value === 'daemon') return { daemon: true };
  if (picked.value === 'container') return { daemon: false };
  const filter = await vscode.window.showInputBox({
    title: vscode.l10n.t('GPU Rental: Show Instance Logs'),
    prompt: vscode.l10n.t('Show only the lines matching this pattern (a regular expression, applied by the service)'),
    placeHolder: vscode.l10n.t('error|Traceback'),
    validateInput: (v) => (v.trim() ? undefined : 'Enter a pattern, or press Escape.'),
  });
  return filter ? { daemon: false, filter: filter.trim() } : undefined;
}

async function open(services: Pick<Services, 'log' | 'logs'>, key: LogKey, name: string): Promise<vscode.TextDocument> {
  const { path, query } = logPath(key, name);
  const uri = vscode.Uri.from({ scheme: LOGS_SCHEME, path, query });
  services.logs.open(key, name);
  const first = services.logs.refresh(key, name);
  const doc = await vscode.workspace.openTextDocument(uri);
  const shown = await vscode.languages.setTextDocumentLanguage(doc, 'log').then(
    (d) => d,
    () => doc,
  );
  await vscode.window.showTextDocument(shown, { preview: false });
  // A failed fetch is said in the document itself (its first lines, with "Use Refresh"): no notification.
  const e = await first;
  if (e.error) services.log.warn(`Could not fetch the log of "${name}": ${e.error}`);
  return shown;
}

/**
 * gpuRental.showInstanceLogs(node | id | { id, daemon?, tail?, filter?, resultUrl? }): asks which
 * log (unless given), requests it and opens it read-only; resolves the document once the first
 * text is in.
 */
export async function showInstanceLogs(
  services: Pick<Services, 'api' | 'connection' | 'instances' | 'log' | 'logs' | 'settings'>,
  arg?: unknown,
): Promise<vscode.TextDocument | undefined> {
  const tail = services.settings().logs.tail;
  if (isLogArgs(arg)) {
    const id = instanceIdOf(arg);
    if (id === undefined) throw new CommandFailure(vscode.l10n.t('"Show Instance Logs" needs an instance id, e.g. { id: 123, daemon: true }.'));
    const t = positiveId(arg.tail);
    const key: LogKey = { instanceId: id, daemon: arg.daemon === true, tail: t ?? tail };
    if (typeof arg.filter === 'string' && arg.filter.trim()) key.filter = arg.filter.trim();
    if (typeof arg.resultUrl === 'string' && arg.resultUrl) key.resultUrl = arg.resultUrl;
    const inst = services.instances.get(id);
    return open(services, key, inst ? instanceName(inst) : `#${id}`);
  }
  const inst = await resolveInstance(services, arg, () => true, { verb: 'Show Instance Logs', none: 'You have no instances yet.' });
  if (!inst) return undefined;
  const which = await chooseLog(tail);
  if (!which) return undefined;
  return open(services, { instanceId: inst.id, tail, ...which }, instanceName(inst));
}

function keyFrom(arg: unknown): LogKey | undefined {
  const uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : vscode.window.activeTextEditor?.document.uri;
  return logKeyOf(uri);
}

/** A log command with no log open: the failure for the command's reporter, with the button that opens one. */
const noLogOpen = (): CommandFailure =>
  new CommandFailure(vscode.l10n.t('Open an instance log first (Show Instance Logs… on an instance).'), [
    fixByCommand(vscode.l10n.t('Show Instance Logs…'), 'gpuRental.showInstanceLogs'),
  ]);

/** gpuRental.refreshInstanceLogs(uri?): fetches the (active) log document again; resolves its text. */
export async function refreshInstanceLogs(services: Pick<Services, 'logs'>, arg?: unknown): Promise<string | undefined> {
  const key = keyFrom(arg);
  if (!key) throw noLogOpen();
  const e = await services.logs.refresh(key, services.logs.get(key)?.name);
  // The document says it too (its first lines); the notice is the command's reporter's.
  if (e.error) throw new CommandFailure(vscode.l10n.t('Could not fetch the log: {0}', e.error));
  return e.text;
}

async function setFollow(services: Pick<Services, 'log' | 'logs'>, arg: unknown, on: boolean): Promise<boolean> {
  const key = keyFrom(arg);
  if (!key || !services.logs.get(key)) throw noLogOpen();
  services.logs.setFollowing(key, on);
  if (on) background(services.logs.refresh(key, services.logs.get(key)?.name), services.log, 'refreshing the instance log');
  return true;
}

/** gpuRental.followInstanceLogs(uri?): fetches the log again every few seconds while it is visible. */
export function followInstanceLogs(services: Pick<Services, 'log' | 'logs'>, arg?: unknown): Promise<boolean> {
  return setFollow(services, arg, true);
}

export function stopFollowingInstanceLogs(services: Pick<Services, 'log' | 'logs'>, arg?: unknown): Promise<boolean> {
  return setFollow(services, arg, false);
}
