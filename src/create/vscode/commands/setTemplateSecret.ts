// gpuRental.setTemplateSecret: stores a value for ${secret:NAME} in SecretStorage.
import * as vscode from 'vscode';
import { CommandFailure } from '../../../core/vscode/commandFailure';
import type { Services } from '../../../core/vscode/services';
import { tellDone } from '../../../core/vscode/statusMessage';
import { SECRET_NAME, templateSecretKey } from '../../templateVariables';

export async function setTemplateSecret(services: Pick<Services, 'log' | 'secrets'>, arg?: { name?: string; value?: string }): Promise<boolean> {
  const name =
    arg?.name ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Set template secret'),
      prompt: vscode.l10n.t('Name used in templates as ${secret:NAME}'),
      placeHolder: vscode.l10n.t('HF_TOKEN'),
      validateInput: (v) => (SECRET_NAME.test(v) ? undefined : 'Use letters, digits, "_", "-" and "."; start with a letter or "_".'),
    }));
  if (!name) return false;
  if (!SECRET_NAME.test(name))
    throw new CommandFailure(vscode.l10n.t('"{0}" is not a valid secret name. Use letters, digits, "_", "-" and ".", then try again.', name));
  const value =
    arg?.value ??
    (await vscode.window.showInputBox({
      title: `Value of \${secret:${name}}`,
      prompt: vscode.l10n.t('Stored in VS Code SecretStorage (your OS keychain); leave empty to delete it.'),
      placeHolder: vscode.l10n.t('the secret value (hidden as you type)'),
      password: true,
      ignoreFocusOut: true,
    }));
  if (value === undefined) return false;
  if (value === '') {
    await services.secrets.delete(templateSecretKey(name));
    tellDone(vscode.l10n.t('Template secret {0} deleted.', name));
  } else {
    await services.secrets.store(templateSecretKey(name), value);
    tellDone(vscode.l10n.t('Template secret {0} saved: templates use it as {1}.', name, `\${secret:${name}}`));
  }
  services.log.info(`templates: secret ${name} ${value === '' ? 'deleted' : 'stored'}`);
  return true;
}
