// Template problems as diagnostics, on open, edit (debounced) and save, next to the JSON
// Schema squiggles VS Code shows from contributes.jsonValidation.
import * as vscode from 'vscode';
import type { Services } from '../../core/vscode/services';
import type { TemplateProblem } from '../templateValidation';
import { matchesGlob } from '../templateGlob';
import { readTemplateGlob } from './templateGlobSetting';
import { background } from '../../core/background';

/** Is this file a template by the glob setting (relative to its workspace folder)? */
export function isTemplateUri(services: Pick<Services, never>, uri: vscode.Uri): boolean {
  if (uri.scheme === 'output' || !vscode.workspace.getWorkspaceFolder(uri)) return false;
  return matchesGlob(vscode.workspace.asRelativePath(uri, false), readTemplateGlob());
}

export function toDiagnostics(doc: vscode.TextDocument, problems: readonly TemplateProblem[]): vscode.Diagnostic[] {
  return problems.map((p) => {
    const start = doc.positionAt(p.offset ?? 0);
    const end = doc.positionAt((p.offset ?? 0) + Math.max(1, p.length ?? 1));
    const d = new vscode.Diagnostic(
      new vscode.Range(start, end),
      p.where === '(syntax)' || p.where === '(template)' ? p.message : `${p.where}: ${p.message}`,
      p.severity === 'warning'
        ? vscode.DiagnosticSeverity.Warning
        : p.severity === 'info'
          ? vscode.DiagnosticSeverity.Information
          : vscode.DiagnosticSeverity.Error,
    );
    d.source = 'GPU Rental template';
    return d;
  });
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  return Promise.resolve(vscode.workspace.fs.stat(uri)).then(
    () => true,
    () => false,
  );
}

export function registerTemplateDiagnostics(services: Pick<Services, 'api' | 'connection' | 'log' | 'secrets' | 'track'>): vscode.DiagnosticCollection {
  const collection = vscode.languages.createDiagnosticCollection('gpuRental.templates');
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const watchDeletions = deletionWatcher(services, collection);
  const check = async (doc: vscode.TextDocument) => {
    // Restricted Mode: templates are not read (templateTrust.ts); trust granted re-checks below.
    if (!vscode.workspace.isTrusted || !isTemplateUri(services, doc.uri)) return;
    try {
      // Validation is a lazily loaded bundle, loaded when the first template file is seen.
      const r = await (await import('./templateFiles')).loadTemplateUri(services, doc.uri);
      // A deleted file's document lingers until VS Code disposes it: a re-check (e.g. after a
      // secret changed) must not bring its problems back.
      if (doc.isClosed || !(await exists(doc.uri))) return void collection.delete(doc.uri);
      watchDeletions();
      collection.set(doc.uri, toDiagnostics(doc, r.problems));
    } catch (e) {
      services.log.warn(`templates: checking ${vscode.workspace.asRelativePath(doc.uri)} failed: ${e instanceof Error ? e.message : 'unknown error'}`);
    }
  };
  const later = (doc: vscode.TextDocument) => {
    // Every keystroke in every editor lands here: only template files get a timer, and it
    // is forgotten once it has fired or the document is closed.
    if (!isTemplateUri(services, doc.uri)) return;
    const k = doc.uri.toString();
    clearTimeout(timers.get(k));
    timers.set(
      k,
      setTimeout(() => {
        timers.delete(k);
        background(check(doc), services.log, 'checking a template file');
      }, 400),
    );
  };
  for (const d of [
    collection,
    vscode.workspace.onDidGrantWorkspaceTrust(() =>
      vscode.workspace.textDocuments.forEach((d) => background(check(d), services.log, 'checking a template file')),
    ),
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidSaveTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => later(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => {
      const k = d.uri.toString();
      clearTimeout(timers.get(k));
      timers.delete(k);
      collection.delete(d.uri);
    }),
    services.secrets.onDidChange(() => vscode.workspace.textDocuments.forEach(later)),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  ])
    services.track(d);
  vscode.workspace.textDocuments.forEach((d) => background(check(d), services.log, 'checking a template file'));
  return collection;
}

/**
 * A deleted template (or its folder) takes its problems with it: VS Code disposes a closed
 * document only later, so the close event alone left them in the Problems view. The watcher is
 * made with the first problems set (before, there is nothing to take), not during activation.
 */
function deletionWatcher(services: Pick<Services, 'track'>, collection: vscode.DiagnosticCollection): () => void {
  let watching = false;
  const forget = (gone: vscode.Uri) => {
    const prefix = `${gone.toString()}/`;
    const stale: vscode.Uri[] = [];
    collection.forEach((u) => void ((u.toString() === gone.toString() || u.toString().startsWith(prefix)) && stale.push(u)));
    stale.forEach((u) => collection.delete(u));
  };
  return () => {
    if (watching) return;
    watching = true;
    const watcher = vscode.workspace.createFileSystemWatcher('**/*', true, true, false);
    services.track(watcher);
    services.track(watcher.onDidDelete(forget));
  };
}
