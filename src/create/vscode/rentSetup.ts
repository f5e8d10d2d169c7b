// What every rent from a template needs before the flow starts (a single machine's and a group's):
// the client, the SSH key check (one question when SSH would not let the user in), the idle guard
// for this window's service, and the onstart that installs it (added to a server template's own).
import * as vscode from 'vscode';
import type { ServiceApi } from '../../api/types';
import type { Services } from '../../core/vscode/services';
import { failedTo } from '../../core/vscode/commandFailure';
import { baseOnstart, guardRequestFor, type GuardRequest } from '../../guard/plan';
import type { Template } from '../templateSchema';
import type { LoadedTemplate } from '../templateValidation';
import { readGuardSettings } from '../../guard/vscode/guardSettings';

export interface RentSetup {
  api: ServiceApi;
  guard?: GuardRequest;
  onstart?: string;
}

/** undefined when the user declined the key question; throws (for the command's reporter) when nothing can be rented. */
export async function rentSetup(services: Services, loaded: LoadedTemplate & { template: Template }): Promise<RentSetup | undefined> {
  const template = loaded.template;
  const api: ServiceApi = await services.api();
  // The first rent of a session checks that SSH will let the user in (one question when not).
  const keys = await (
    await import('../../ssh/vscode/sshKeyCheck')
  ).checkSshKey(services, { once: true, ...(template.ssh?.identityFile ? { identityFile: template.ssh.identityFile } : {}) });
  if (!keys.proceed) return undefined;
  // The idle guard goes in through onstart and calls the same service URL this window uses.
  const guard = guardRequestFor(template.guard, template.instance.runtype, readGuardSettings(), services.connection().baseUrl);
  // With a server template, the guard is added to its own onstart (read first), never replaces it.
  try {
    const onstart = await baseOnstart(
      loaded.onstart ?? template.instance.onstart,
      template.instance.template_hash_id,
      guard,
      async (h) => (await api.searchTemplates({ filters: { hash_id: { eq: h } } }))[0],
    );
    return { api, ...(guard ? { guard } : {}), ...(onstart !== undefined ? { onstart } : {}) };
  } catch (e) {
    throw failedTo(e, (why) => vscode.l10n.t('Nothing was rented. {0}', why));
  }
}
