// Instance logs as read-only documents on the gpu-rental-logs scheme (not Untitled files: they
// never ask to be saved). Renders services.logs; while a followed log is visible it is fetched
// again every gpuRental.logs.followIntervalSeconds.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { keyId, logKeyOf, renderLog } from '../logStore';
import { background } from '../../core/background';

export const LOG_FOLLOWING_CONTEXT = 'gpuRental.logFollowing';

export class InstanceLogsProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private timerSeconds = 0;

  constructor(private readonly services: Services) {
    this.subs.push(
      services.logs.onDidChange((key) => {
        for (const doc of vscode.workspace.textDocuments) {
          const k = logKeyOf(doc.uri);
          if (k && keyId(k) === keyId(key)) this.changed.fire(doc.uri);
        }
        this.updateContext();
        this.schedule();
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        const k = logKeyOf(doc.uri);
        if (k) services.logs.close(k);
        this.schedule();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const key = logKeyOf(uri);
    if (!key) return '# Not a GPU Rental log address.\n';
    const name = this.services.instances.get(key.instanceId)?.label?.trim() || `#${key.instanceId}`;
    let e = this.services.logs.get(key);
    if (!e) {
      e = this.services.logs.open(key, name);
      background(this.services.logs.refresh(key, name), this.services.log, 'fetching the instance log');
    }
    return renderLog(e, this.services.settings().logs.followIntervalSeconds);
  }

  private updateContext(): void {
    const key = logKeyOf(vscode.window.activeTextEditor?.document.uri);
    const following = key ? this.services.logs.get(key)?.following === true : false;
    background(vscode.commands.executeCommand('setContext', LOG_FOLLOWING_CONTEXT, following), this.services.log, 'setting the log-following context');
  }

  /** One timer while anything is followed; each tick fetches the followed logs that are on screen. */
  private schedule(): void {
    const seconds = this.services.settings().logs.followIntervalSeconds;
    const any = this.services.logs.following().length > 0;
    if (!any || seconds !== this.timerSeconds) {
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      this.timerSeconds = 0;
    }
    if (any && !this.timer) {
      this.timerSeconds = seconds;
      this.timer = setInterval(() => this.tick(), seconds * 1000);
    }
  }

  private tick(): void {
    const visible = new Set(vscode.window.visibleTextEditors.map((e) => e.document.uri.toString()));
    for (const doc of vscode.workspace.textDocuments) {
      const key = logKeyOf(doc.uri);
      if (!key || !visible.has(doc.uri.toString())) continue;
      const e = this.services.logs.get(key);
      if (e?.following && !e.loading) background(this.services.logs.refresh(key, e.name), this.services.log, 'fetching the instance log');
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.subs.forEach((d) => d.dispose());
    this.changed.dispose();
  }
}
