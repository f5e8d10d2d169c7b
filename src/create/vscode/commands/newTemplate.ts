// gpuRental.newTemplate: writes a commented example into .gpu/ and opens it.
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { exampleTemplate } from '../../templateExample';
import { CommandFailure, OPEN_FOLDER } from '../../../core/vscode/commandFailure';
import { openTemplateFix } from '../templateFiles';

export async function newTemplate(_services: Pick<Services, never>): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0)
    throw new CommandFailure(vscode.l10n.t('Templates live in a workspace folder, and none is open. Open a folder, then run "New Template" again.'), [
      OPEN_FOLDER(),
    ]);
  const folder =
    folders.length === 1 ? folders[0]! : await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Folder to create the template in') });
  if (!folder) return undefined;
  const name = await vscode.window.showInputBox({
    title: vscode.l10n.t('New GPU Rental template'),
    prompt: vscode.l10n.t('File name in .gpu/'),
    value: 'my-gpu-box',
    placeHolder: vscode.l10n.t('e.g. my-gpu-box'),
    validateInput: (v) => (/^[A-Za-z0-9._-]+$/.test(v.replace(/\.json$/, '')) ? undefined : 'Use letters, digits, ".", "_" and "-".'),
  });
  if (!name) return undefined;
  const stem = name.replace(/\.json$/, '');
  const uri = vscode.Uri.joinPath(folder.uri, '.gpu', `${stem}.json`);
  const exists = await vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
  if (exists)
    throw new CommandFailure(vscode.l10n.t('{0} already exists. Choose another name, or open the existing file.', vscode.workspace.asRelativePath(uri)), [
      openTemplateFix(uri),
    ]);
  await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder.uri, '.gpu'));
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(exampleTemplate(stem)));
  await vscode.window.showTextDocument(uri);
  return uri;
}
