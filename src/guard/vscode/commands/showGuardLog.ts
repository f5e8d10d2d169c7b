// gpuRental.showGuardLog (an instance row, an id or `{ instanceId }`): the end of the instance's
// guard.log (what its idle guard saw and did, and why it is not reporting) in a read-only
// document (gpu-rental-guard-log:/<id>/guard.log: nothing to save). Read over SSH by the
// guard's own remote; "no log yet", "no SSH entry" and "not reachable" are said in words.
// A lazily loaded bundle.
import * as vscode from 'vscode';
import { CommandFailure, failedWith, fixByCommand } from '../../../core/vscode/commandFailure';
import type { Services } from '../../../core/vscode/services';
import type { Instance } from '../../../api/types';
import { resolveInstance } from '../../../core/vscode/instanceTarget';
import { instanceName } from '../../../core/instanceWords';
import { installedGuard } from '../../installed';
import { guardLogDocument, guardLogProblem, readGuardLog, type GuardLogRead } from '../../guardLog';

const OPEN_TERMINAL = 'Open Terminal';

export const GUARD_LOG_SCHEME = 'gpu-rental-guard-log';

/** What each open guard-log document shows (set before it is opened or refreshed). */
const texts = new Map<string, string>();
let changed: vscode.EventEmitter<vscode.Uri> | undefined;
let reads = 0;

function register(services: Pick<Services, 'track'>): vscode.EventEmitter<vscode.Uri> {
  if (changed) return changed;
  const emitter = (changed = new vscode.EventEmitter<vscode.Uri>());
  services.track(emitter);
  services.track(
    vscode.workspace.registerTextDocumentContentProvider(GUARD_LOG_SCHEME, {
      onDidChange: emitter.event,
      provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? 'This guard log is no longer available: run "GPU Rental: Show Idle Guard Log" again.\n',
    }),
  );
  services.track(vscode.workspace.onDidCloseTextDocument((d) => d.uri.scheme === GUARD_LOG_SCHEME && texts.delete(d.uri.toString())));
  return emitter;
}

export interface ShowGuardLogResult {
  instanceId: number;
  read: GuardLogRead['kind'];
  /** The document, when there was a log to show. */
  document?: vscode.TextDocument;
}

export async function showGuardLog(
  services: Pick<Services, 'api' | 'connection' | 'guard' | 'instances' | 'log' | 'track'>,
  arg?: unknown,
): Promise<ShowGuardLogResult | undefined> {
  // Stopped instances too: after the guard stopped one, its log says why (the last lines read while it ran).
  const inst: Instance | undefined = await resolveInstance(services, arg, (i) => i.state === 'running' || installedGuard(i.onstart) !== undefined, {
    verb: 'Show Idle Guard Log',
    none: 'No instance with an idle guard: a guard log is read from an instance whose guard runs (or ran).',
  });
  if (!inst) return undefined;
  const name = instanceName(inst);
  const r = await readGuardLog({ readLog: (id) => services.guard.readLog(id) }, inst, services.guard.lastLog(inst.id));
  if (r.kind !== 'log') {
    const problem = guardLogProblem(name, r);
    if (r.kind === 'unreachable') {
      services.log.warn(`guard: reading the guard log of instance ${inst.id} failed: ${r.reason}`);
    }
    // One notice either way (the command's reporter's), with what resolves it (G3 of the UX audit): a terminal on the instance.
    return failedWith({ instanceId: inst.id, read: r.kind }, new CommandFailure(problem, [fixByCommand(OPEN_TERMINAL, 'gpuRental.openTerminal', inst.id)]));
  }
  const emitter = register(services);
  // A new document per read: an open one is refreshed only later, so reading it at once gave the old log.
  const uri = vscode.Uri.from({ scheme: GUARD_LOG_SCHEME, path: `/${inst.id}/guard.log`, query: `read=${++reads}` });
  texts.set(uri.toString(), guardLogDocument(name, inst.id, r, new Date()));
  emitter.fire(uri);
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { preview: true });
  return { instanceId: inst.id, read: r.kind, document };
}
