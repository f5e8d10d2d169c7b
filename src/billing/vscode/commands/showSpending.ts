// Show Spending (a webview: the service's charges of the last 30 days as a chart and a table,
// strict CSP, no script, no network) and Export Spending to CSV.
import * as vscode from 'vscode';
import { CommandFailure, failedTo } from '../../../core/vscode/commandFailure';
import type { Services } from '../../../core/vscode/services';
import { ensureSignedIn } from '../../../core/vscode/signedIn';
import { formatMoney } from '../../../core/rates';
import { chargesCsv, windowStart, type Spending } from '../../spending';
import type { Charge } from '../../../api/types';
import { spendingDaysTable, spendingSvg } from '../../spendingChart';
import { panelIcon } from '../../../core/vscode/webviewPage';
import { billingSession, type BillingServices } from '../billingSession';
import { background } from '../../../core/background';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
let panel: vscode.WebviewPanel | undefined;
const OPEN = 'Open';
const REVEAL = 'Reveal in File Explorer';

/** The spending figures; throws (for the command's reporter) when the charges could not be read. */
async function readSpending(services: BillingServices): Promise<Spending> {
  const store = billingSession(services).spending;
  const s = await store.refresh();
  if (!s) throw chargesUnread(new Error(store.error ?? 'no answer'));
  return s;
}

const chargesUnread = (e: unknown): CommandFailure => failedTo(e, (why) => vscode.l10n.t("Could not read the service's charges: {0}", why));

export function spendingHtml(webview: vscode.Webview, extensionUri: vscode.Uri, s: Spending, names: (id: number) => string | undefined): string {
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'billing', 'spending.css'));
  const csp = ["default-src 'none'", `style-src ${webview.cspSource}`, "img-src 'none'", "script-src 'none'", "connect-src 'none'", "form-action 'none'"].join(
    '; ',
  );
  const fig = (what: string, v: number) => `<div class="figure"><div class="value">${esc(formatMoney(v))}</div><div class="what">${esc(what)}</div></div>`;
  const byInstance = [...s.byInstance.entries()].sort((a, b) => b[1] - a[1]);
  const rows = byInstance.map(([id, v]) => `<tr><td>${esc(names(id) ?? `#${id}`)}</td><td class="num">${esc(formatMoney(v))}</td></tr>`).join('');
  const other = s.other;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}"><title>Spending</title></head>
<body>
<h1>Spending (the service's charges)</h1>
<div class="figures">${fig('today', s.today)}${fig('this week', s.week)}${fig('this month', s.month)}${fig('last 30 days', s.last30)}</div>
${spendingSvg(s)}
<div class="legend"><span class="instance">■ instances</span><span class="volume">■ volumes</span><span class="serverless">■ serverless</span><span class="other">■ other</span></div>
${spendingDaysTable(s)}
<table><tr><th>Instance</th><th>Since ${esc(new Date(s.from * 1000).toISOString().slice(0, 10))}</th></tr>${rows}${other > 0 ? `<tr><td>Other</td><td class="num">${esc(formatMoney(other))}</td></tr>` : ''}</table>
<p class="note">Days are UTC, as the service bills them. Read ${esc(new Date(s.at * 1000).toISOString().slice(0, 16).replace('T', ' '))} UTC. <a href="command:gpuRental.exportSpending">Export to CSV…</a></p>
</body></html>`;
}

/** gpuRental.showSpending: the webview (one panel, refreshed when shown again). */
export async function showSpending(
  services: Pick<
    Services,
    | 'api'
    | 'connection'
    | 'connectionState'
    | 'credit'
    | 'extensionUri'
    | 'globalState'
    | 'instanceGone'
    | 'instances'
    | 'log'
    | 'marks'
    | 'onDidChangeConnection'
    | 'settings'
    | 'track'
  >,
): Promise<boolean> {
  ensureSignedIn(services);
  const s = await readSpending(services);
  const root = vscode.Uri.joinPath(services.extensionUri, 'media', 'billing');
  if (!panel) {
    panel = vscode.window.createWebviewPanel('gpuRental.spending', 'GPU Rental: Spending', vscode.ViewColumn.Active, {
      enableScripts: false,
      enableCommandUris: ['gpuRental.exportSpending'],
      localResourceRoots: [root],
    });
    panel.iconPath = panelIcon(services.extensionUri);
    panel.onDidDispose(() => (panel = undefined));
  } else panel.reveal();
  const names = (id: number) => {
    const i = services.instances.get(id);
    return i ? `${i.label || `#${id}`} (#${id})` : s.labels.get(id);
  };
  panel.webview.html = spendingHtml(panel.webview, services.extensionUri, s, names);
  return true;
}

/** gpuRental.exportSpending(uri?): the charges of the window as CSV; returns the file written. */
export async function exportSpending(services: Pick<Services, 'api' | 'connection' | 'log'>, target?: unknown): Promise<string | undefined> {
  ensureSignedIn(services);
  const now = Date.now() / 1000;
  let charges: Charge[];
  try {
    // The rows themselves, read for this export only: the summary kept by the store holds sums.
    charges = await (await services.api()).listCharges({ from: windowStart(now), to: now });
  } catch (e) {
    throw chargesUnread(e);
  }
  const day = new Date(now * 1000).toISOString().slice(0, 10);
  const uri =
    target instanceof vscode.Uri
      ? target
      : typeof target === 'string'
        ? vscode.Uri.file(target)
        : await vscode.window.showSaveDialog({
            title: vscode.l10n.t('GPU Rental: Export Spending'),
            saveLabel: 'Export',
            filters: { CSV: ['csv'] },
            defaultUri: vscode.Uri.file(`gpu-rental-charges-${day}.csv`),
          });
  if (!uri) return undefined;
  try {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(chargesCsv(charges)));
  } catch (e) {
    throw failedTo(e, (why) => vscode.l10n.t('Could not write {0}: {1}', uri.fsPath, why));
  }
  // The file is the point of the command: a toast whose buttons open it or show where it is.
  background(
    vscode.window.showInformationMessage(vscode.l10n.t('Exported {0} charge rows to {1}.', charges.length, uri.fsPath), OPEN, REVEAL).then((a) => {
      if (a === OPEN) return vscode.commands.executeCommand('vscode.open', uri);
      if (a === REVEAL) return vscode.commands.executeCommand('revealFileInOS', uri);
      return undefined;
    }),
    services.log,
    'the export notice',
  );
  return uri.fsPath;
}
