// Stopped disks end, inside a real VS Code: with gpuRental.guard.destroyAfterStoppedDays set, a
// guarded instance stopped long enough gets the warning a day before (Keep starts another
// period), and at the end VS Code destroys it (the setting is the standing consent: no dialog)
// and says what that saves. Time is the records' (the extension's global state), not the clock.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { describe, it, getExtensionApi, waitFor, answer, capture, promptCalls } from './framework';
import { signInToSeeded, signOutAfterEach } from './session';
import { simControl } from './sim';
import { composeOnstart, resolveGuardPlan } from '../../../src/guard/plan';
import { DAY_MS, type StoppedRecords } from '../../../src/guard/stoppedDays';
import { STOPPED_SINCE_KEY } from '../../../src/core/stateKeys';
import type { Services } from '../../../src/core/vscode/services';

const SETTING = 'guard.destroyAfterStoppedDays';

async function stoppedGuarded(services: Services, block: Parameters<typeof resolveGuardPlan>[0] = {}): Promise<number> {
  const api = await services.api();
  const offer = (await api.searchOffers({ type: 'on-demand', order: [['dph_total', 'asc']] }))[0]!;
  const onstart = composeOnstart('echo hi', resolveGuardPlan(block)!, { apiUrl: services.connection().baseUrl, dphTotal: offer.dph_total ?? 1 }).onstart!;
  const { new_contract: id } = await api.createInstance(offer.id, { image: 'sim/base:1', runtype: 'ssh_proxy', label: 'stopped-disk', onstart });
  await simControl().finishBoot(id);
  await api.setInstanceState(id, 'stopped');
  await waitFor(
    async () => {
      await services.instances.refresh();
      return services.instances.get(id)?.state === 'stopped';
    },
    10_000,
    'the row to show stopped',
  );
  return id;
}

describe('idle guard: stopped disks', () => {
  signOutAfterEach(async () => {
    await vscode.workspace.getConfiguration('gpuRental').update(SETTING, undefined, vscode.ConfigurationTarget.Global);
  });

  it(
    'warns a day before with Keep, then destroys a guarded instance stopped that long, without a dialog, and says what it saves',
    async () => {
      await signInToSeeded(0);
      const { services } = await getExtensionApi();
      const id = await stoppedGuarded(services);
      const key = `${STOPPED_SINCE_KEY}:${services.connection().baseUrl}`;
      const records = () => services.globalState.get<StoppedRecords>(key) ?? {};
      // Off by default: the stop is recorded, nothing else happens. The watcher loads on the list that
      // first shows a stopped instance (its own bundle), so the record follows that list, not with it.
      await waitFor(() => records()[id], 10_000, 'the stop to be recorded');
      await vscode.workspace.getConfiguration('gpuRental').update(SETTING, 2, vscode.ConfigurationTarget.Global);

      // Stopped a day and a half: the warning, Keep clicked (another two days from now).
      answer('showWarningMessage', 'Keep');
      await services.globalState.update(key, { ...records(), [id]: { since: Date.now() - 1.5 * DAY_MS } });
      await services.instances.refresh();
      await waitFor(() => (records()[id]?.since ?? 0) > Date.now() - 60_000, 10_000, 'Keep to start another period');
      const warning = promptCalls.find((p) => p.kind === 'showWarningMessage')!;
      assert.match(
        warning.text,
        /^stopped-disk\S* has been stopped for 1 day\. Its disk still bills \$\d+\.\d{3}\/h \(\$\d+\.\d\d a month\)\. GPU Rental destroys it .* \(in about a day\), with its disk and all data on it, as your setting gpuRental\.guard\.destroyAfterStoppedDays \(2\) says\./,
      );
      assert.equal(services.instances.get(id)?.state, 'stopped', 'kept');

      // Warned over a day ago and stopped long enough: destroyed, with no dialog, and told.
      capture('showInformationMessage', 'showWarningMessage');
      const before = promptCalls.length;
      await services.globalState.update(key, { ...records(), [id]: { since: Date.now() - 3 * DAY_MS, warnedAt: Date.now() - DAY_MS - 60_000 } });
      await services.instances.refresh();
      const api = await services.api();
      await waitFor(async () => !(await api.listInstances()).instances.some((i) => i.id === id), 15_000, 'the destroy');
      const told = await waitFor(
        () => promptCalls.find((p) => p.kind === 'showInformationMessage' && p.text.startsWith('GPU Rental destroyed')),
        10_000,
        'the notice',
      );
      assert.match(
        told.text,
        /^GPU Rental destroyed stopped-disk\S*: it stayed stopped for 2 days \(your setting gpuRental\.guard\.destroyAfterStoppedDays\)\. That saves \$\d+\.\d{3}\/h of storage \(\$\d+\.\d\d a month\)\.$/,
      );
      assert.deepEqual(
        promptCalls.slice(before).filter((p) => p.kind === 'showWarningMessage'),
        [],
        'no confirmation dialog: the setting is the consent',
      );
    },
    { timeoutMs: 60_000 },
  );

  it(
    'two instances due in one list: ONE warning whose Review… offers Keep and Destroy Now… for each (issue 35 item 3)',
    async () => {
      await signInToSeeded(0);
      const { services } = await getExtensionApi();
      const ids = [await stoppedGuarded(services), await stoppedGuarded(services)];
      const key = `${STOPPED_SINCE_KEY}:${services.connection().baseUrl}`;
      const records = () => services.globalState.get<StoppedRecords>(key) ?? {};
      await vscode.workspace.getConfiguration('gpuRental').update(SETTING, 2, vscode.ConfigurationTarget.Global);
      const toasts: unknown[][] = [];
      const picks: string[][] = [];
      answer('showWarningMessage', (...args: unknown[]) => (toasts.push(args), 'Review…'));
      // the first instance's Keep, then (offered again without it) Escape: the other is left to its warning
      answer(
        'showQuickPick',
        (items: Array<{ label: string; description?: string }>) => (
          picks.push(items.filter((i) => i.description).map((i) => i.label)),
          items.find((i) => i.label === 'Keep')
        ),
        (items: Array<{ label: string; description?: string }>) => (picks.push(items.filter((i) => i.description).map((i) => i.label)), undefined),
      );
      const since = Date.now() - 1.5 * DAY_MS;
      await services.globalState.update(key, { ...records(), ...Object.fromEntries(ids.map((id) => [id, { since }])) });
      await services.instances.refresh();
      await waitFor(() => (picks.length === 2 ? true : undefined), 10_000, 'the review to come back after Keep');
      assert.equal(toasts.length, 1, toasts.map((t) => String(t[0])).join('\n'));
      assert.match(String(toasts[0]![0]), /^2 stopped instances will be destroyed in about a day/);
      assert.deepEqual(toasts[0]!.slice(1), ['Review…']);
      assert.deepEqual(picks, [
        ['Keep', 'Destroy Now…', 'Keep', 'Destroy Now…'],
        ['Keep', 'Destroy Now…'],
      ]);
      assert.equal(ids.filter((id) => (records()[id]?.since ?? 0) > Date.now() - 60_000).length, 1, 'one kept (another period), one left as warned');
    },
    { timeoutMs: 60_000 },
  );

  it(
    "an instance rented with the template's guard.destroyAfterStoppedDays follows it with the setting off, and the messages name it",
    async () => {
      await signInToSeeded(0);
      const { services } = await getExtensionApi();
      const id = await stoppedGuarded(services, { destroyAfterStoppedDays: 1 });
      const key = `${STOPPED_SINCE_KEY}:${services.connection().baseUrl}`;
      const records = () => services.globalState.get<StoppedRecords>(key) ?? {};
      await waitFor(() => records()[id], 10_000, 'the stop to be recorded');
      // The setting stays off: stopped a few hours is already in the template's last day, so the warning comes.
      capture('showWarningMessage');
      await services.globalState.update(key, { ...records(), [id]: { since: Date.now() - 3 * 3600_000 } });
      await services.instances.refresh();
      const warning = await waitFor(() => promptCalls.find((p) => p.kind === 'showWarningMessage' && p.text.startsWith('stopped-disk')), 10_000, 'the warning');
      assert.match(
        warning.text,
        /has been stopped for less than a day\..* as its template's guard\.destroyAfterStoppedDays \(1\) says \(agreed to when it was rented\)\. Keep it to wait another 1 day\.$/,
      );
      capture('showInformationMessage');
      await services.globalState.update(key, { ...records(), [id]: { since: Date.now() - 2 * DAY_MS, warnedAt: Date.now() - DAY_MS - 60_000 } });
      await services.instances.refresh();
      const told = await waitFor(
        () => promptCalls.find((p) => p.kind === 'showInformationMessage' && p.text.startsWith('GPU Rental destroyed')),
        15_000,
        'the notice',
      );
      assert.match(told.text, /^GPU Rental destroyed stopped-disk\S*: it stayed stopped for 1 day \(its template's guard\.destroyAfterStoppedDays\)\./);
      assert.ok(!(await (await services.api()).listInstances()).instances.some((i) => i.id === id), 'destroyed');
    },
    { timeoutMs: 60_000 },
  );

  it(
    'a guarded instance started again meanwhile is left alone (its record ends)',
    async () => {
      await signInToSeeded(0);
      const { services } = await getExtensionApi();
      const id = await stoppedGuarded(services);
      const key = `${STOPPED_SINCE_KEY}:${services.connection().baseUrl}`;
      await vscode.workspace.getConfiguration('gpuRental').update(SETTING, 1, vscode.ConfigurationTarget.Global);
      await (await services.api()).setInstanceState(id, 'running');
      await simControl().finishBoot(id);
      await services.globalState.update(key, { [id]: { since: Date.now() - 9 * DAY_MS, warnedAt: Date.now() - 8 * DAY_MS } });
      await waitFor(
        async () => {
          await services.instances.refresh();
          return services.instances.get(id)?.state === 'running';
        },
        10_000,
        'the row to show running',
      );
      await waitFor(() => !(services.globalState.get<StoppedRecords>(key) ?? {})[id], 5000, 'the record to end');
      assert.ok(
        (await (await services.api()).listInstances()).instances.some((i) => i.id === id),
        'not destroyed',
      );
    },
    { timeoutMs: 60_000 },
  );
});
