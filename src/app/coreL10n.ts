// The cores (plain TypeScript, no `vscode`) translate their texts with @vscode/l10n's `l10n.t`.
// In the extension host it gets VS Code's loaded bundle once, here at activation; every bundle of
// the extension shares one copy of the package (dist/l10n.js, scripts/bundles.mjs sharedPackages),
// so lazily loaded parts see it too. Without a bundle (English, the MCP server) `l10n.t` returns
// the English message with its arguments filled in.
import * as vscode from 'vscode';
import * as l10n from '@vscode/l10n';

/** Hands the cores VS Code's translations for the display language, when there are any. */
export function configureCoreL10n(bundle: { [key: string]: string } | undefined = vscode.l10n.bundle): void {
  if (bundle !== undefined) l10n.config({ contents: bundle });
}
