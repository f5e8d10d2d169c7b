// gpuRental.createGroup: Create from Template for a template with `count` of 2 or more (the
// create command hands such a template here). The group flow behind a cancellable progress
// notification; a ready group gets its hostfile in the workspace (.gpu/<group>.hostfile).
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { describeError } from '../../../core/describeError';
import { background } from '../../../core/background';
import { realClock } from '../../../create/flowTypes';
import { consentedCreateArgs } from '../../../core/unattended';
import { consentOf } from '../../../core/vscode/consent';
import { rentSetup } from '../../../create/vscode/rentSetup';
import { loadTemplateUri, openTemplateFix, requireTemplateUri, templatesRestricted } from '../../../create/vscode/templateFiles';
import { CommandFailure, SHOW_OUTPUT_LOG, failedWith } from '../../../core/vscode/commandFailure';
import { tellDone } from '../../../core/vscode/statusMessage';
import { createWriter, sshEntryWriterFor } from '../../../ssh/vscode/sshHost';
import { runGroupFlow } from '../../groupFlow';
import { resumeGroups } from '../../groupResume';
import { readGroups, type GroupRecord } from '../../groupRecords';
import { formatRate } from '../../../core/rates';
import { groupTotal } from '../groupPick';
import { hostfile, prepareGroup } from '../../groupLaunch';
import { sshShell } from '../../sshShell';
import type { GroupResult } from '../../groupTypes';
import { vscodeGroupPrompts } from '../groupPrompts';
import { lateMembers } from '../../groupLate';
import { watchLateGroupMembers } from '../lateMembers';

export interface CreateGroupArgs {
  /** Workspace-relative path, URI string or vscode.Uri of the template. */
  template?: string | vscode.Uri;
  /** false: no questions (the cheapest cluster, no confirmation): scripts and tests. */
  confirm?: boolean;
  pollIntervalMs?: number;
  /** All or none within this time (default 20 minutes). */
  maxWaitMs?: number;
  signal?: AbortSignal;
}

export async function createGroup(services: Services, asked: CreateGroupArgs = {}): Promise<GroupResult | undefined> {
  // confirm: false (no cluster pick, no confirmation) only with the user's consent to unattended calls.
  const args = consentedCreateArgs(consentOf(services), asked);
  if (await templatesRestricted()) return undefined;
  const uri = await requireTemplateUri(args.template);
  const rel = vscode.workspace.asRelativePath(uri, false);
  const loaded = await loadTemplateUri(services, uri);
  const t = loaded.template;
  if (!t)
    throw new CommandFailure(vscode.l10n.t('Template {0} has problems (see the Problems panel). Nothing was rented. Fix them and try again.', rel), [
      openTemplateFix(uri),
    ]);
  const setup = await rentSetup(services, { ...loaded, template: t });
  if (!setup) return undefined;
  const { api, guard, onstart } = setup;
  const shell = sshShell({ configPath: createWriter(services).configPath });
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('GPU Rental: group "{0}" ({1} machines)', t.name, String(t.count)),
      cancellable: true,
    },
    (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      args.signal?.addEventListener('abort', () => ac.abort(), { once: true });
      return runGroupFlow(
        {
          api,
          log: services.log,
          prompts: vscodeGroupPrompts(),
          progress: (u) => progress.report({ message: u.message }),
          clock: realClock,
          ssh: sshEntryWriterFor(services),
          instances: services.instances,
          state: services.globalState,
          prepare: (g, inst) => {
            progress.report({ message: vscode.l10n.t("every machine runs; reading rank 0's address and writing each rank's environment…") });
            return prepareGroup(shell, realClock, g, inst);
          },
        },
        {
          template: t,
          templatePath: rel,
          secrets: loaded.secrets,
          ...(onstart !== undefined ? { onstart } : {}),
          ...(guard ? { guard } : {}),
          ...(args.confirm === false ? { confirm: false } : {}),
          ...(args.pollIntervalMs ? { pollIntervalMs: args.pollIntervalMs } : {}),
          ...(args.maxWaitMs ? { maxWaitMs: args.maxWaitMs } : {}),
          signal: ac.signal,
        },
      );
    },
  );
  // A member with no answer is its group's: watched, and destroyed with the group if it appears (all or none).
  if (result.outcome === 'failed' && result.unknown.length) background(watchLateGroupMembers(services, api), services.log, "watching a group's late member");
  // A failure goes to the command's reporter, with the result for scripts.
  if (result.outcome === 'failed' || (result.outcome === 'nothing' && !result.cancelled))
    return failedWith(result, new CommandFailure(result.message, result.outcome === 'failed' ? [SHOW_OUTPUT_LOG()] : []));
  await report(services, result, uri);
  return result;
}

/** A ready group: its hostfile and one notification with Run on Group…; cancelled: a status bar line. */
async function report(services: Services, r: GroupResult, templateUri: vscode.Uri): Promise<void> {
  if (r.outcome === 'nothing') return tellDone(r.message);
  if (r.outcome === 'failed') return;
  const g = r.group;
  // The workspace's hostfile names the SSH entries (mpirun and DeepSpeed launch from here over them).
  const folder = vscode.Uri.joinPath(templateUri, '..');
  const file = vscode.Uri.joinPath(folder, `${g.name}.hostfile`);
  try {
    await vscode.workspace.fs.writeFile(
      file,
      new TextEncoder().encode(
        hostfile(
          g.members.map((m) => `gpu-${g.name}-${m.rank}`),
          g.gpusPerNode,
        ),
      ),
    );
  } catch (e) {
    services.log.warn(`group ${g.name}: writing the workspace hostfile failed: ${describeError(e)}`);
  }
  background(
    vscode.window
      .showInformationMessage(vscode.l10n.t('{0} Hostfile: {1}.', r.message, vscode.workspace.asRelativePath(file, false)), vscode.l10n.t('Run on Group…'))
      .then((c) => {
        if (c) background(vscode.commands.executeCommand('gpuRental.runOnGroup', { group: g.name }), services.log, 'opening Run on Group');
      }),
    services.log,
    'the group ready notice',
  );
}

/**
 * After a reload: every group that was being rented is resumed as one group (src/groups/groupResume.ts).
 * One that does not come up whole is destroyed only after the user's yes; until then it stays,
 * shown as its group in the Instances view.
 */
export async function resumeInterruptedGroups(services: Services): Promise<void> {
  if (!readGroups(services.globalState).some((g) => g.status === 'renting') && !lateMembers(services.globalState).length) return;
  const api = await services.api();
  const shell = sshShell({ configPath: createWriter(services).configPath });
  const ac = new AbortController();
  services.track({ dispose: () => ac.abort() });
  const out = await resumeGroups(
    {
      api,
      log: services.log,
      clock: realClock,
      ssh: sshEntryWriterFor(services),
      state: services.globalState,
      instances: services.instances,
      prepare: (g, inst) => prepareGroup(shell, realClock, g, inst),
      confirmUnwind: async (g: GroupRecord, ids: readonly number[], problem: string) =>
        (await vscode.window.showWarningMessage(
          vscode.l10n.t('Group "{0}": {1}. Destroy its {2} machine(s) ({3} in total)?', g.name, problem, ids.length, formatRate(groupTotal(g), 2)),
          {
            modal: true,
            detail: vscode.l10n.t(
              'The group was being rented when VS Code reloaded; all or none was agreed, so it cannot be used as it is. Instances {0} are billing until destroyed. "Keep" leaves them in the Instances view, under the group (Destroy Group there).',
              ids.join(', '),
            ),
          },
          vscode.l10n.t('Destroy Group'),
          vscode.l10n.t('Keep'),
        )) === vscode.l10n.t('Destroy Group'),
    },
    { signal: ac.signal },
  );
  // What is still in flight of a given-up group (this one, or one of an earlier session) is watched as its late members.
  background(watchLateGroupMembers(services, api), services.log, "watching a group's late members");
  // Resumed groups show in the Instances view: a status bar line each; only machines that still bill after a failed unwind get a notification.
  for (const r of out) {
    if (r.outcome === 'ready') tellDone(vscode.l10n.t('Group "{0}" is ready after the reload: every machine runs. Rank 0 is gpu-{1}-0.', r.name, r.name));
    else if (r.outcome === 'destroyed' && r.kept.length)
      vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Group "{0}": {1} could not be destroyed and still bill. Destroy them from the Instances view.',
          r.name,
          r.kept.map((id) => `instance ${id}`).join(', '),
        ),
      );
    else if (r.outcome === 'destroyed') tellDone(vscode.l10n.t('Group "{0}" was destroyed ({1} machines); nothing of it bills.', r.name, r.destroyed.length));
  }
}
