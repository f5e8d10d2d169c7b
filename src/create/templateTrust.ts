// Workspace trust and templates: a template file is code the workspace hands us (its onstart
// script runs on a machine billed to the user, its secrets are read from secret storage), so in
// Restricted Mode no workspace template is found, read or used. package.json declares this as
// capabilities.untrustedWorkspaces "limited" (see docs/compatibility.md).
import * as l10n from '@vscode/l10n';

/** What the user is told wherever a template would have been read. */
export function templatesRestrictedText(): string {
  return l10n.t('Templates are not read in Restricted Mode: trust this folder to use them.');
}

/** The button that opens VS Code's workspace trust editor, and the command behind it. */
export const MANAGE_TRUST = { label: () => l10n.t('Manage Workspace Trust'), command: 'workbench.trust.manage' } as const;

/** Thrown where a template would be read in an untrusted workspace. */
class TemplatesRestrictedError extends Error {
  constructor() {
    super(templatesRestrictedText());
    this.name = 'TemplatesRestrictedError';
  }
}

/** Throws TemplatesRestrictedError unless the workspace is trusted. */
export function assertTemplatesReadable(trusted: boolean): void {
  if (!trusted) throw new TemplatesRestrictedError();
}
