// A service template as the read-only workspace template that rents it
// (gpu-rental-template:/<hash_id>/<name>.json): what "Open" shows and what "Rent" hands to
// the create flow, without writing a file.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import { workspaceTemplateText } from '../serverTemplates';

export class ServerTemplateDocs implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: Services) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const hash = uri.path.split('/')[1] ?? '';
    const t = this.services.serverTemplates.get(hash);
    return t ? workspaceTemplateText(t) : `// The service template ${hash} is no longer loaded: run "Browse Server Templates…" again.\n`;
  }
}
