// The HTML shell shared by the 2FA webviews: strict CSP (no inline script or style, the
// one script allowed by nonce), theme colours through VS Code's CSS variables.
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function mediaRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'media', 'tfa');
}

/** The editor tab icon of every GPU Rental webview: the activity bar's GPU, drawn for light and dark themes. */
export function panelIcon(extensionUri: vscode.Uri): { light: vscode.Uri; dark: vscode.Uri } {
  return { light: vscode.Uri.joinPath(extensionUri, 'media', 'gpu-light.svg'), dark: vscode.Uri.joinPath(extensionUri, 'media', 'gpu-dark.svg') };
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [mediaRoot(extensionUri)], retainContextWhenHidden: false, enableFindWidget: false };
}

export function page(webview: vscode.Webview, extensionUri: vscode.Uri, o: { title: string; body: string; script: string }): string {
  const nonce = randomBytes(16).toString('base64');
  const css = webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot(extensionUri), 'tfa.css'));
  const js = webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot(extensionUri), o.script));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "img-src 'none'",
    "connect-src 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}">
<title>${escapeHtml(o.title)}</title>
</head>
<body>
${o.body}
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
}
