// The idle guard as a newcomer meets it in the demo, inside a real VS Code: the connection is a
// demo (on the runner's simulator), the simulator runs the rented instance's onstart for real
// (the watchdog, with a fake nvidia-smi that reports what Set Demo GPU Load sets), and the guard
// looks every second and acts after 12 idle seconds instead of the demo templates' 2 minutes.
// The walk: the row says "watching" → the address is recycled (the instance's [host]:port pinned
// with another machine's key, as a destroyed machine's pin is) → a terminal open on an idle GPU
// keeps it running past its idle limit → Set Demo GPU Load… → Idle from the row's context menu →
// the real warning with its Keep Running / Stop Now / Don't Warn Again links → busy again: it
// closes → idle again: a new warning (Keep Running clicked:
// the snooze file written over SSH keeps it, the recycled address notwithstanding; the warning
// closes) → Show Idle Guard Log → the snooze
// ends → the watchdog stops the instance with its own key, one notice says so and what it saves
// (no stale warning beside it), and the stopped row says why. Screenshots at each step (screenshots/guard-*.png).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  describe,
  it,
  afterEach,
  getExtensionApi,
  waitFor,
  capture,
  sleep,
  simUrl,
  uiCheckpoint,
  log,
  restorePrompts,
  forget,
  setUserSetting,
} from './framework';
import { simControl } from './sim';

import { createKeyPair } from '../../../src/ssh/keys';
import type { Instance } from '../../../src/api/types';
import { INFLIGHT_STATE_KEY, type CreateFlowResult } from '../../../src/create/createFlow';
import type { GuardActed, GuardWarning, GuardWithdrawal } from '../../../src/core/guardPort';
import { actedText } from '../../../src/guard/vscode/guardWarningText';
import { generateEd25519 } from '../../../src/ssh/keygen';
import type { ShowGuardLogResult } from '../../../src/guard/vscode/commands/showGuardLog';
import { signOutAndDropSshHome, tempSshHome } from './testKey';
import type { Services } from '../../../src/core/vscode/services';
import { SSH_OPTIONS_STATE_KEY } from '../../../src/core/stateKeys';

const TEMPLATE = '.gpu/guard-it.json';
const IDLE_SECONDS = 12;
/** The row while an open terminal keeps the instance busy: "SSH session", or with the count ("ssh 1"). */
const sshBusy = /^guard: watching · busy \((SSH session|ssh \d+)\)$/;
let home: string | undefined;
let templateFile: string | undefined;
let createdId: number | undefined;
/** The parent of the demo's temporary SSH home (GPU_RENTAL_DEMO_DIR), so the walk finds its known_hosts. */
let demoParent: string | undefined;

interface TreeLike {
  getTreeItem(node: { kind: string; id?: number }): vscode.TreeItem | Thenable<vscode.TreeItem>;
}

describe('idle guard', () => {
  afterEach(async () => {
    const { services } = await getExtensionApi();
    const control = simControl();
    await control.runOnstart(false).catch(() => undefined);
    try {
      if (createdId !== undefined) await (await services.api()).destroyInstance(createdId);
    } catch {
      // gone or signed out already
    }
    createdId = undefined;
    await vscode.commands.executeCommand('gpuRental.exitDemoMode');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await forget(services.globalState, INFLIGHT_STATE_KEY);
    await forget(services.globalState, SSH_OPTIONS_STATE_KEY);
    await setUserSetting('gpuRental', 'ssh.identityFile', undefined);
    await setUserSetting('remote', 'autoForwardPorts', undefined);
    await signOutAndDropSshHome(services, home);
    if (templateFile) rmSync(templateFile, { force: true });
    if (demoParent) rmSync(demoParent, { recursive: true, force: true });
    delete process.env.GPU_RENTAL_DEMO_DIR;
    home = templateFile = demoParent = undefined;
  });

  it(
    "a newcomer's walk in the demo: watching → Set Demo GPU Load idle → warning, Keep Running → guard log → stopped by its own key, the reason on the row (screenshots)",
    async () => {
      const t0 = Date.now();
      const { services } = await getExtensionApi();
      home = tempSshHome('gpu-rental-guard-it-').home;
      demoParent = mkdtempSync(join(tmpdir(), 'gpu-rental-guard-demo-'));
      process.env.GPU_RENTAL_DEMO_DIR = demoParent;
      // A demo on the runner's simulator (test control on: the clock, the onstart runner's knobs).
      await services.setDemo({ url: simUrl(), apiKey: 'sim-api-key' });
      try {
        await walk(services, t0);
      } finally {
        // Before the other files' hooks run (Clear API Key in a demo would wait for an answer).
        await (await services.api()).destroyInstance(createdId ?? 0).catch(() => undefined);
        createdId = undefined;
        await vscode.commands.executeCommand('gpuRental.exitDemoMode');
      }
    },
    { timeoutMs: 120_000 },
  );
});

async function walk(services: Services, t0: number): Promise<void> {
  const control = simControl();
  await waitFor(() => services.connection().demo && services.connection().signedIn, 5000, 'the demo connection');
  // The key through the setting: the demo makes its own key pair at its first rent only once per
  // simulator, and earlier files of this tier rented on this one.
  const key = await createKeyPair({ home: home!, comment: 'gpu-rental-guard-it' });
  await vscode.workspace.getConfiguration('gpuRental').update('ssh.identityFile', key.privatePath, vscode.ConfigurationTarget.Global);
  const api = await services.api();
  await api.addSshKey(key.line);
  await control.runOnstart(true, { GPU_GUARD_TICK: 1, GPU_GUARD_IDLE_SECONDS: IDLE_SECONDS });
  templateFile = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, TEMPLATE);
  writeFileSync(
    templateFile,
    JSON.stringify({
      name: 'Guarded box',
      offer: { gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 2 },
      instance: { image: 'pytorch/pytorch:latest', runtype: 'ssh_direct', label: 'guarded-it' },
      guard: { idleMinutes: 2, gpuUtilBelow: 10 },
    }),
  );
  const offers = await api.searchOffers({ gpuNames: ['RTX 4090'], numGpus: 1, maxDphTotal: 2, type: 'on-demand', order: [['dph_total', 'asc']] });
  assert.ok(offers.length > 0, 'no matching offer in the simulator');

  capture('showInformationMessage', 'showErrorMessage');
  const before = new Set(services.instances.instances.map((i) => i.id));
  const pending = vscode.commands.executeCommand<CreateFlowResult | undefined>('gpuRental.createFromTemplate', {
    template: TEMPLATE,
    offerId: offers[0]!.id,
    confirm: false,
    pollIntervalMs: 250,
  });
  const row = await waitFor(() => services.instances.instances.find((i) => !before.has(i.id) && /^guarded-it/.test(i.label ?? '')), 8000, 'the new row');
  createdId = row.id;
  // A job keeps its GPU busy while it boots (the command as scripts call it).
  assert.deepEqual(await vscode.commands.executeCommand('gpuRental.setDemoGpuLoad', { instanceId: row.id, util: 90 }), { instanceId: row.id, util: 90 });
  await control.advance(120);
  const r = await pending;
  assert.equal(r?.outcome, 'running', JSON.stringify(r && { ...r, instance: undefined }));
  const inst = (r as { instance: Instance }).instance;
  assert.match(inst.onstart ?? '', /gpu-rental\/guard\.sh/, 'the guard went in through onstart');
  const tree = (await getExtensionApi()).ui.instances as unknown as TreeLike;
  const description = async () => String((await tree.getTreeItem({ kind: 'instance', id: inst.id })).description);

  // 1. The row: the watchdog on the instance reports (over SSH) that it is watching a busy GPU.
  await waitFor(
    async () => {
      await services.instances.refresh();
      return services.guard.status(inst.id)?.text === 'guard: watching · busy (GPU at 90 %)';
    },
    25_000,
    'the row saying the guard watches a busy GPU',
  ).catch(async (e: Error) => {
    const direct = await services.guard.readLog(inst.id).then(
      (x) => `log ${JSON.stringify(x)}`,
      (x: Error) => `error ${x.message}`,
    );
    throw new Error(
      `direct read: ${direct}; ` +
        `${e.message}; the row says ${JSON.stringify(services.guard.status(inst.id))}; the rent said ${JSON.stringify({ ...r, instance: undefined })}`,
    );
  });
  assert.match(await description(), /guard: watching · busy \(GPU at 90 %\)/);
  await vscode.commands.executeCommand('workbench.action.closeAllEditors'); // the sidebar and the notifications are what the pictures show
  log(`guard-watching at ${Math.round((Date.now() - t0) / 1000)} s`);
  assert.equal(await uiCheckpoint('guard-watching'), 'ok');

  // 2. The address is recycled: this instance's [host]:port is pinned with another machine's key,
  // as a destroyed machine's pin was (it blocked SSH, so Keep Running failed and the guard stopped
  // the new machine). Host keys are pinned per instance now: the walk goes on through it.
  recyclePin(inst);

  // 3. A terminal open on an idle GPU keeps it running: the watchdog counts the SSH session.
  // (code-server would otherwise forward the simulator's many SSH ports and stack its own notice over the guard's.)
  await vscode.workspace.getConfiguration('remote').update('autoForwardPorts', false, vscode.ConfigurationTarget.Global);
  const opened = await vscode.commands.executeCommand<{ action: string }>('gpuRental.openTerminal', inst.id);
  assert.equal(opened?.action, 'terminal', JSON.stringify(opened));
  // The session is up once its shell runs a command (the simulated instance's shell is on this machine).
  const marker = join(demoParent!, 'terminal-connected');
  const term = await waitFor(() => vscode.window.terminals.find((x) => x.name.startsWith('SSH ')), 10_000, 'the terminal');
  term.sendText(`echo ok > '${marker}'`);
  await waitFor(() => existsSync(marker), 30_000, "the terminal's SSH session running its shell");
  const early: GuardWarning[] = [];
  const earlySub = services.guard.onWarn((w) => early.push(w));
  try {
    await vscode.commands.executeCommand('gpuRental.setDemoGpuLoad', { instanceId: inst.id, util: 0 });
    // The GPU idle from here (the watchdog reads it at its next tick, within a second): the idle limit
    // counts from now, also while the row catches up with the session below.
    const gpuIdleSince = Date.now();
    // The watchdog's words for it: "SSH session", or with the count ("ssh 1").
    await waitFor(() => sshBusy.test(services.guard.status(inst.id)?.text ?? ''), 20_000, 'the guard counting the open terminal').catch((e: Error) => {
      const terms = vscode.window.terminals.map((x) => `${x.name} exit ${JSON.stringify(x.exitStatus)}`);
      throw new Error(
        `${e.message}; the row says ${JSON.stringify(services.guard.status(inst.id)?.text)}; terminals ${JSON.stringify(terms)}; opened ${JSON.stringify(opened)}`,
      );
    });
    // Past its idle limit with the GPU at 0 %: still running, never warned.
    await sleep(IDLE_SECONDS * 1000 + 3000 - (Date.now() - gpuIdleSince));
    assert.equal((await api.showInstance(inst.id)).state, 'running', 'an open terminal keeps the instance running');
    assert.match(services.guard.status(inst.id)?.text ?? '', sshBusy);
    assert.deepEqual(early, [], 'no warning while a terminal is open');
    log(`guard-terminal-open at ${Math.round((Date.now() - t0) / 1000)} s`);
    assert.equal(await uiCheckpoint('guard-terminal-open'), 'ok');
  } finally {
    earlySub.dispose();
  }
  await vscode.commands.executeCommand('gpuRental.setDemoGpuLoad', { instanceId: inst.id, util: 90 });
  for (const term of vscode.window.terminals) term.dispose();
  await vscode.commands.executeCommand('workbench.action.closePanel');

  // 4. Set Demo GPU Load… → Idle (0 %), from the row's context menu (the runner clicks it).
  const warnings: GuardWarning[] = [];
  const withdrawn: GuardWithdrawal[] = [];
  const sub = services.guard.onWarn((w) => warnings.push(w));
  const withdrawSub = services.guard.onWithdraw((w) => withdrawn.push(w));
  try {
    log(`guard-set-idle at ${Math.round((Date.now() - t0) / 1000)} s`);
    assert.equal(await uiCheckpoint('guard-set-idle'), 'ok');
    await waitFor(async () => (await api.showInstance(inst.id)).gpu_util === 0, 5000, 'the fake GPU reporting 0 %');
    // 5. The warning (a real notification; the runner screenshots it and checks its links).
    const first = await waitFor(() => warnings[0], 45_000, 'the idle warning');
    assert.equal(first.reason, 'idle');
    assert.equal(first.action, 'stop');
    log(`guard-warning at ${Math.round((Date.now() - t0) / 1000)} s`);
    assert.equal(await uiCheckpoint('guard-warning'), 'ok');
    // Busy again: the warning is withdrawn and closes (the runner checks it is gone from the page);
    // idle again: a new idle stretch, a new warning.
    await vscode.commands.executeCommand('gpuRental.setDemoGpuLoad', { instanceId: inst.id, util: 90 });
    await waitFor(() => withdrawn.length > 0, 45_000, 'the warning withdrawn once the GPU is busy');
    assert.deepEqual(
      withdrawn.map((x) => [x.key, x.why]),
      [[first.key, 'busy']],
    );
    assert.equal(await uiCheckpoint('guard-warning-withdrawn'), 'ok');
    await vscode.commands.executeCommand('gpuRental.setDemoGpuLoad', { instanceId: inst.id, util: 0 });
    const w = await waitFor(() => warnings[1], 45_000, 'the warning of the new idle stretch');
    assert.notEqual(w.key, first.key);
    // Keep Running 1 h, clicked in it by the runner.
    assert.equal(await uiCheckpoint('guard-keep-running'), 'ok');
    await waitFor(
      () => services.guard.status(inst.id)?.text.startsWith('guard: watching · kept running until'),
      10_000,
      'the snooze written over SSH (through the recycled address)',
    );
    // What the idle limit leaves to spare once the snooze is read (a shorter IDLE_SECONDS must keep this well above 0).
    log(`kept running ${Math.round((w.actAt - Date.now()) / 100) / 10} s before the watchdog would act`);
    // Kept running: the warning is withdrawn, so its notification closes (the runner checks it is gone from the page).
    assert.deepEqual(
      withdrawn.map((x) => [x.key, x.why]),
      [
        [first.key, 'busy'],
        [w.key, 'snoozed'],
      ],
    );
    // Past the moment the watchdog would have acted, the instance still runs.
    await sleep(Math.max(0, w.actAt + 3000 - Date.now()));
    assert.equal((await api.showInstance(inst.id)).state, 'running', 'Keep Running postponed the stop');
    log(`guard-kept-running at ${Math.round((Date.now() - t0) / 1000)} s`);
    assert.equal(await uiCheckpoint('guard-kept-running'), 'ok');
  } finally {
    sub.dispose();
    withdrawSub.dispose();
  }

  // 6. Show Idle Guard Log: what the watchdog saw, read over SSH.
  const shown = await vscode.commands.executeCommand<ShowGuardLogResult | undefined>('gpuRental.showGuardLog', inst.id);
  assert.equal(shown?.read, 'log', JSON.stringify(shown && { ...shown, document: undefined }));
  const logText = shown!.document!.getText();
  assert.match(logText, /^Idle guard log of guarded-it\S* \(#\d+\)\nThe last 200 lines/);
  assert.match(logText, new RegExp(`started: stop after ${IDLE_SECONDS} s idle, GPU below 10 %`));
  assert.match(logText, /idle \(GPU 0, SSH \d/i);
  assert.ok(!logText.includes('sim-api-key'));
  log(`guard-log at ${Math.round((Date.now() - t0) / 1000)} s`);
  assert.equal(await uiCheckpoint('guard-log'), 'ok');

  // 7. The snooze ends (the same command, as scripts end it): the watchdog stops the instance with
  // its own key, one notice says so (a real notification from here on), and the stopped row says why.
  restorePrompts();
  const acted: GuardActed[] = [];
  const actedSub = services.guard.onActed((a) => acted.push(a));
  const ended = await vscode.commands.executeCommand<{ via: string } | undefined>('gpuRental.snoozeGuard', { instanceId: inst.id, minutes: 0 });
  assert.equal(ended?.via, 'ssh');
  await waitFor(
    async () => {
      await services.instances.refresh();
      return services.instances.get(inst.id)?.state === 'stopped';
    },
    (IDLE_SECONDS + 15) * 1000,
    'the watchdog stopping the instance',
  );
  assert.match(await description(), new RegExp(`stopped by its idle guard at \\d\\d:\\d\\d( [AP]M)? \\(idle ${IDLE_SECONDS} s\\)`));
  const told = await waitFor(() => acted[0], 10_000, 'the notice that the guard stopped it').finally(() => actedSub.dispose());
  assert.equal(acted.length, 1, 'one notice');
  assert.equal(told.action, 'stop');
  assert.equal(told.reason, 'idle');
  assert.match(
    actedText(told),
    new RegExp(`^The idle guard stopped guarded-it\\S* at \\d\\d:\\d\\d( [AP]M)?: it was idle for ${IDLE_SECONDS} s\\. That saves \\$\\d+\\.\\d\\d/h`),
  );
  // The notice is on screen now (a notification with buttons hides itself after some seconds).
  log(`guard-stopped at ${Math.round((Date.now() - t0) / 1000)} s`);
  assert.equal(await uiCheckpoint('guard-stopped'), 'ok');
  // Its guard log stays readable once stopped: the last lines read while it ran.
  const stoppedLog = await vscode.commands.executeCommand<ShowGuardLogResult | undefined>('gpuRental.showGuardLog', inst.id);
  assert.equal(stoppedLog?.read, 'log', JSON.stringify(stoppedLog && { ...stoppedLog, document: undefined }));
  assert.match(
    stoppedLog!.document!.getText(),
    /^Idle guard log of guarded-it\S* \(#\d+\)\nThe last lines read while it ran/,
    `state ${services.instances.get(inst.id)?.state}`,
  );
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const puts = (await control.requests()).filter((q) => q.method === 'PUT' && q.path === `/api/v0/instances/${inst.id}/`);
  assert.deepEqual(
    puts.map((q) => q.status),
    [200],
    'one stop, by the watchdog on the instance (VS Code sent none)',
  );
  const walkSeconds = Math.round((Date.now() - t0) / 1000);
  assert.ok(walkSeconds <= 85, `the walk took ${walkSeconds} s (budget 85 s)`);
}

/** Pins each address of the instance's entry ([host]:port) in the demo's known_hosts with a key of another machine. */
function recyclePin(inst: Instance): void {
  const [dir] = readdirSync(demoParent!).filter((d) => d.startsWith('gpu-rental-demo-ssh-'));
  assert.ok(dir, 'the demo SSH home');
  const managed = join(demoParent!, dir, '.ssh', 'gpu-rental');
  const config = readFileSync(join(managed, 'config'), 'utf8');
  const block = config.split(/\n(?=# gpu-rental:entry )/).find((b) => b.startsWith(`# gpu-rental:entry id=${inst.id}`)) ?? '';
  const names = [...block.matchAll(/HostName (\S+)\n\s*Port (\d+)/g)].map((m) => (m[2] === '22' ? m[1]! : `[${m[1]}]:${m[2]}`));
  assert.ok(names.length, `the instance's entry names its addresses: ${block}`);
  const knownHosts = join(managed, 'known_hosts');
  const pinned = readFileSync(knownHosts, 'utf8');
  assert.ok(pinned.trim(), "the guard's reads pinned the instance's key");
  const foreign = generateEd25519('an-earlier-machine').public.split(' ').slice(0, 2).join(' ');
  // What an address pin of a destroyed machine looks like: the address, another key.
  const kept = pinned.split('\n').filter((l) => l && !names.some((n) => l.startsWith(`${n} `)));
  writeFileSync(knownHosts, [...kept, ...names.map((n) => `${n} ${foreign}`), ''].join('\n'), { mode: 0o600 });
}
