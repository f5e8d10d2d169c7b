// Shows backup codes exactly once, in a webview (an editor document could be saved
// anywhere unnoticed). Copy and Save to File are explicit user actions; the codes are not
// persisted by the view: no webview state, no serializer, nothing retained when closed.
import * as vscode from 'vscode';
import { escapeHtml, page, panelIcon, webviewOptions } from '../../core/vscode/webviewPage';

/** `savePath`: where Save to File proposes to save (see src/account/backupCodesFile.ts). */
export function showBackupCodes(extensionUri: vscode.Uri, codes: readonly string[], title: string, savePath: () => string): Promise<void> {
  const panel = vscode.window.createWebviewPanel('gpuRental.tfaBackupCodes', title, vscode.ViewColumn.Active, webviewOptions(extensionUri));
  panel.iconPath = panelIcon(extensionUri);
  let list = [...codes];
  const body = `
<main>
<h1>${escapeHtml(title)}</h1>
<p class="warning" role="alert"><strong>These codes will not be shown again.</strong> Store them now somewhere safe, such as a password manager. Each code signs you in once if you lose access to your 2FA methods.</p>
<ol class="codes" aria-label="Backup codes">${list.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ol>
<p class="buttons"><button id="copy" type="button">Copy All</button> <button id="save" type="button" class="secondary">Save to File…</button> <button id="done" type="button" class="secondary">I Have Stored Them</button></p>
<p id="status" role="status" aria-live="polite"></p>
</main>`;
  panel.webview.html = page(panel.webview, extensionUri, { title, body, script: 'backupCodes.js' });
  return new Promise<void>((resolve) => {
    panel.onDidDispose(() => {
      list = [];
      resolve();
    });
    panel.webview.onDidReceiveMessage(async (m: { type?: string }) => {
      const text = `${list.join('\n')}\n`;
      if (m?.type === 'copy') {
        await vscode.env.clipboard.writeText(text);
        panel.webview.postMessage({ type: 'status', text: 'Copied to the clipboard.' });
      } else if (m?.type === 'save') {
        const uri = await vscode.window.showSaveDialog({
          title: vscode.l10n.t('Save backup codes'),
          defaultUri: vscode.Uri.file(savePath()),
          filters: { 'Text files': ['txt'] },
        });
        if (!uri) return;
        try {
          await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
          panel.webview.postMessage({ type: 'status', text: `Saved to ${uri.fsPath}. Keep that file private.` });
        } catch (e) {
          panel.webview.postMessage({
            type: 'status',
            text: `Could not save the file (${(e as Error).message}). Choose another location or copy the codes instead.`,
          });
        }
      } else if (m?.type === 'done') {
        panel.dispose();
      }
    });
  });
}
