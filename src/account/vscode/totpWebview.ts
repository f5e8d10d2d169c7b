// The authenticator-app setup view: QR code rendered here from provisioning_uri (the
// service sends no image), the base32 secret for manual entry, and the code field.
// Loaded lazily (its own bundle, dist/tfaWebview.js) because of the QR encoder.
import * as vscode from 'vscode';
import qrcode from 'qrcode-generator';
import type { TotpSetupResult } from '../../api/types';
import { escapeHtml, page, panelIcon, webviewOptions } from '../../core/vscode/webviewPage';

/** SVG of the QR code: dark modules as one path on a white quiet zone, scannable in any theme. */
export function qrSvg(text: string, cell = 5, margin = 4): string {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const size = (n + margin * 2) * cell;
  let d = '';
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (qr.isDark(r, c)) d += `M${(c + margin) * cell} ${(r + margin) * cell}h${cell}v${cell}h-${cell}z`;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${size}" height="${size}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`;
}

function groupSecret(s: string): string {
  return s.replace(/(.{4})/g, '$1 ').trim();
}

/** The page body: steps, QR code, key for manual entry, code and label fields. */
export function totpBody(setup: TotpSetupResult, demoCode?: string): string {
  const demo = demoCode
    ? `<p id="demo" class="demo" role="note">Demo inbox: an authenticator app with this key shows <strong id="demo-code">${escapeHtml(demoCode)}</strong> now (a new code every 30 seconds). <button id="use-demo" type="button" class="secondary">Use This Code</button></p>`
    : '';
  return `
<main>
<h1>Add an authenticator app</h1>${demo}
<ol class="steps">
  <li>Open your authenticator app (for example Google Authenticator, 1Password, Authy) and add an account.</li>
  <li>Scan this QR code, or enter the key below by hand.</li>
  <li>Type the 6-digit code the app shows and choose <strong>Verify and Turn On</strong>.</li>
</ol>
<div class="qr" role="img" aria-label="QR code to add this account to an authenticator app">${qrSvg(setup.provisioning_uri)}</div>
<p><label for="secret">Key for manual entry (time-based, 6 digits, 30 seconds):</label></p>
<p class="secret-row"><input id="secret" class="secret" readonly value="${escapeHtml(groupSecret(setup.secret))}" aria-readonly="true"><button id="copy" type="button">Copy Key</button></p>
<form id="form" novalidate>
  <p><label for="code">6-digit code from the app</label><br>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" pattern="[0-9]{6}" required aria-describedby="status"></p>
  <p><label for="label">Label (optional, up to 30 characters)</label><br>
  <input id="label" name="label" maxlength="30" placeholder="e.g. Phone authenticator"></p>
  <p class="buttons"><button id="verify" type="submit">Verify and Turn On</button> <button id="cancel" type="button" class="secondary">Cancel</button></p>
  <p id="status" role="status" aria-live="polite"></p>
</form>
</main>`;
}

/** Opens the view; resolves true after a successful confirm, false when closed before. */
export function showTotpSetup(
  extensionUri: vscode.Uri,
  setup: TotpSetupResult,
  submit: (code: string, label?: string) => Promise<string | undefined>,
  /** Demo mode: the code an app would show now, kept current in the view. */
  demoCode?: () => string,
): Promise<boolean> {
  const panel = vscode.window.createWebviewPanel('gpuRental.tfaTotp', 'Add Authenticator App', vscode.ViewColumn.Active, webviewOptions(extensionUri));
  panel.iconPath = panelIcon(extensionUri);
  let secret = setup.secret;
  const body = totpBody(setup, demoCode?.());
  const ticker =
    demoCode &&
    setInterval(() => {
      panel.webview.postMessage({ type: 'demoCode', code: demoCode() });
    }, 5000);
  panel.webview.html = page(panel.webview, extensionUri, { title: vscode.l10n.t('Add Authenticator App'), body, script: 'totp.js' });
  return new Promise<boolean>((resolve) => {
    let ok = false;
    const drop = (): void => {
      secret = '';
    };
    panel.onDidDispose(() => {
      if (ticker) clearInterval(ticker);
      drop();
      resolve(ok);
    });
    panel.webview.onDidReceiveMessage(async (m: { type?: string; code?: unknown; label?: unknown }) => {
      if (m?.type === 'copy') {
        await vscode.env.clipboard.writeText(secret);
        panel.webview.postMessage({ type: 'copied' });
      } else if (m?.type === 'cancel') {
        panel.dispose();
      } else if (m?.type === 'submit' && typeof m.code === 'string') {
        const err = await submit(m.code, typeof m.label === 'string' ? m.label : undefined);
        if (err === undefined) {
          ok = true;
          // Replace the page so the secret leaves the webview before it closes.
          panel.webview.html = '';
          panel.dispose();
        } else {
          panel.webview.postMessage({ type: 'result', error: err });
        }
      }
    });
  });
}
