// One left status bar item: `$(server) $1.84/h · 2 running`, a cost tooltip, the once-per-session
// low-credit warning (an error toast with buttons: the one kind VS Code keeps on screen until it
// is dismissed; "Don't Show Again" sets gpuRental.lowCreditWarningHours to 0 in user settings), and
// its colour while credit is low or this month's budget is reached (warning at 80 %, error at 100 %).
import * as vscode from 'vscode';
import type { Instance } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { currentRate, formatMoney, formatRate, isBilledForCompute, asOfText } from '../../core/rates';
import { formatHours, isCreditLow, summarizeCosts, type CostSummary } from '../costs';
import { instanceName } from '../../core/instanceWords';
import { md } from '../../core/textFormat';
import { rateSourceText } from '../credit';
import { type BurnRate } from '../../core/storePorts';
import { background } from '../../core/background';
import { BUDGET_WARNED_KEY } from '../../core/stateKeys';
import { readGroupIndex, type GroupSummary } from '../../core/groupIndex';
import { countItems, runningText, type CountedGroup, type CountedItems } from '../groupCounts';

const DONT_SHOW_AGAIN = "Don't Show Again";

/** `$(server) $1.84/h · 2 running`; a group of machines counts as one item ("1 group of 3"). */
export function statusText(s: CostSummary, demo: boolean, items?: CountedItems): string {
  return `$(server) ${formatRate(s.totalPerHour)} · ${items ? runningText(items) : `${s.running} running`}${demo ? ' · demo' : ''}`;
}

function groupLine(g: CountedGroup): string {
  return `- Group ${md(g.name)} (${g.members.length} machines${g.active < g.members.length ? `, ${g.active} running` : ''}): ${md(formatRate(g.perHour))} in total`;
}

/** The tooltip; `creditAt` is when the credit was read (the Account view shows the same read). */
export function statusTooltip(
  instances: readonly Instance[],
  s: CostSummary,
  demo: boolean,
  today?: string,
  rate?: BurnRate,
  creditAt?: number,
  groups: readonly GroupSummary[] = [],
): string {
  const lines: string[] = [`**GPU Rental${demo ? ' (demo: simulated account, no real money)' : ''}**`, ''];
  const items = countItems(instances, groups);
  const active = items.singles.filter(isBilledForCompute);
  const idle = items.singles.filter((i) => !isBilledForCompute(i));
  if (active.length || items.activeGroups.length) {
    lines.push('Running:');
    for (const g of items.activeGroups) lines.push(groupLine(g));
    for (const i of active) lines.push(`- ${md(instanceName(i))}: ${md(formatRate(currentRate(i)))}`);
  } else {
    lines.push('Nothing running.');
  }
  if (idle.length || items.idleGroups.length) {
    lines.push('', `Stopped (storage only, ${md(formatRate(s.idleStoragePerHour))} in all):`);
    for (const g of items.idleGroups) lines.push(groupLine(g));
    for (const i of idle) lines.push(`- ${md(instanceName(i))}: ${md(formatRate(currentRate(i)))}`);
  }
  lines.push(
    '',
    `Total: ${md(formatRate(s.totalPerHour))}${rate ? ` (${md(rateSourceText(rate))}${rate.at !== undefined ? `, ${md(asOfText(rate.at))}` : ''})` : ''}`,
  );
  if (s.credit !== undefined) {
    // A blank line first: Markdown would otherwise join "Total" and "Credit" into one line.
    lines.push(
      '',
      `Credit: ${md(formatMoney(s.credit))}` +
        (creditAt !== undefined ? ` (${md(asOfText(creditAt))})` : '') +
        (s.hoursLeft !== undefined ? ` · lasts about ${md(formatHours(s.hoursLeft))} at this rate` : ''),
    );
  }
  // A blank line first: Markdown would otherwise join the lines.
  if (today) lines.push('', md(today));
  lines.push('', 'Click to open the Instances view.');
  return lines.join('\n');
}

export class CostStatusBar implements vscode.Disposable {
  private made: vscode.StatusBarItem | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private warnedThisSession = false;
  summary: CostSummary | undefined;

  constructor(private readonly services: Services) {
    const store = services.instances;
    this.subs.push(
      store.onDidChange(() => this.update()),
      services.credit.onDidChange(() => this.update()),
      services.onDidChangeConnection(() => this.update()),
    );
    // The first update() is its creator's (registerViews: once activate() has returned).
  }

  /**
   * The item, made when there is first something to show (signed in), not during activation:
   * until then it would be hidden anyway.
   */
  get item(): vscode.StatusBarItem {
    if (!this.made) {
      this.made = vscode.window.createStatusBarItem('gpuRental.cost', vscode.StatusBarAlignment.Left, 50);
      this.made.name = 'GPU Rental Cost';
      this.made.command = { command: 'gpuRental.instances.focus', title: vscode.l10n.t('Open Instances') };
    }
    return this.made;
  }

  update(): void {
    const info = this.services.connection();
    if (!info.signedIn) {
      this.summary = undefined;
      this.made?.hide();
      return;
    }
    const store = this.services.instances;
    const instances = store.instances;
    const rate = this.services.credit.rate(instances);
    const s = summarizeCosts(instances, this.services.credit.current(instances), rate.source === 'service' ? rate.perHour : undefined);
    this.summary = s;
    const groups = readGroupIndex(this.services.globalState);
    const items = countItems(instances, groups);
    this.item.text = statusText(s, info.demo, items);
    const tip = new vscode.MarkdownString(
      statusTooltip(instances, s, info.demo, this.services.costs.today(), rate, this.services.credit.reading()?.at, groups),
    );
    this.item.tooltip = tip;
    this.item.accessibilityInformation = {
      label: vscode.l10n.t('GPU Rental: {0}, {1}{2}', formatRate(s.totalPerHour), runningText(items), info.demo ? ', demo mode' : ''),
    };
    this.item.backgroundColor = this.colour(s, info.demo);
    this.item.show();
    if (store.loaded && !info.demo) this.maybeWarn(s);
  }

  /** Error while credit is low or the budget is reached this month, warning from its 80 %. */
  private colour(s: CostSummary, demo: boolean): vscode.ThemeColor | undefined {
    const warned = this.services.globalState.get<{ month?: string; levels?: number[] }>(BUDGET_WARNED_KEY);
    const levels = warned?.month === new Date().toISOString().slice(0, 7) ? (warned.levels ?? []) : [];
    if ((!demo && isCreditLow(s, this.services.settings().lowCreditWarningHours)) || levels.includes(100))
      return new vscode.ThemeColor('statusBarItem.errorBackground');
    return levels.includes(80) ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  /**
   * Not in demo mode: its credit is simulated ("add credit" is impossible), the warning landed
   * on top of the demo's own notice at once, and it used up the one warning of the session
   * before a real key was set.
   */
  private maybeWarn(s: CostSummary): void {
    if (this.warnedThisSession) return;
    if (!isCreditLow(s, this.services.settings().lowCreditWarningHours)) return;
    this.warnedThisSession = true;
    const hours = s.hoursLeft === undefined ? '' : ` in about ${formatHours(s.hoursLeft)}`;
    background(
      vscode.window
        .showErrorMessage(
          vscode.l10n.t(
            'Your credit ({0}) runs out{1} at the current {2}. Add credit on your account page or stop instances you do not need.',
            formatMoney(s.credit ?? 0),
            hours,
            formatRate(s.totalPerHour),
          ),
          vscode.l10n.t('Open Instances'),
          vscode.l10n.t('Stop All Running…'),
          DONT_SHOW_AGAIN,
        )
        .then((a) => {
          if (a === vscode.l10n.t('Open Instances'))
            background(vscode.commands.executeCommand('gpuRental.instances.focus'), this.services.log, 'opening the Instances view');
          else if (a === vscode.l10n.t('Stop All Running…'))
            background(vscode.commands.executeCommand('gpuRental.stopAllRunning'), this.services.log, 'running Stop All Running');
          else if (a === DONT_SHOW_AGAIN)
            background(
              vscode.workspace.getConfiguration('gpuRental').update('lowCreditWarningHours', 0, vscode.ConfigurationTarget.Global),
              this.services.log,
              'turning the credit warning off',
            );
        }),
      this.services.log,
      'the credit warning',
    );
  }

  dispose(): void {
    this.made?.dispose();
    for (const s of this.subs) s.dispose();
  }
}
