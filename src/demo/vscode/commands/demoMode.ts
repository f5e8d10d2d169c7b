// gpuRental.tryDemoMode / gpuRental.exitDemoMode. The simulator runs inside the extension host
// (loaded lazily, never on the activation path) and the connection points at it until Exit Demo Mode.
// Like `npm run demo` it runs each instance's onstart, so the idle guard watches, warns and stops
// (Set Demo GPU Load sets what the fake GPU reports). Nothing is persisted.
import * as vscode from 'vscode';
import { failedTo } from '../../../core/vscode/commandFailure';
import type { Services } from '../../../core/vscode/services';
import { demoMessage } from '../../../core/connection';
import { background } from '../../../core/background';
import { tellDone } from '../../../core/vscode/statusMessage';

/** As in `npm run demo`: each instance's onstart runs (the idle guard with it), and the guard looks every 10 s. */
const DEMO_GUARD_TICK_SECONDS = 10;

/**
 * The VS Code tier's knobs (CONTRIBUTING, test section): a rent's boot and the guard's tick in the demo, in
 * seconds, from the extension host's environment, so a test's rent runs without waiting out 20 s. Unset: the demo's own.
 */
function testSeconds(name: 'GPU_RENTAL_TEST_DEMO_BOOT_S' | 'GPU_RENTAL_TEST_DEMO_GUARD_TICK_S'): number | undefined {
  const s = Number(process.env[name]);
  return Number.isInteger(s) && s > 0 ? s : undefined;
}

export async function tryDemoMode(services: Pick<Services, 'connection' | 'connectionState' | 'log' | 'setDemo'>): Promise<boolean> {
  if (services.connectionState.isDemo()) {
    background(vscode.commands.executeCommand('gpuRental.instances.focus'), services.log, 'opening the Instances view');
    return true;
  }
  if (services.connection().demo) {
    (await import('../demoExplain')).explainAlreadyInDemo(services);
    return true;
  }
  try {
    const [sim, { minifiedWatchdog }] = await Promise.all([import('../../../sim'), import('../../../guard/plan')]);
    // Locked to this window: a random key per demo, only in the Authorization header; of an
    // onstart only the idle guard runs, as this copy of the watchdog (another local process
    // cannot use the demo to run code as you).
    const apiKey = sim.randomKey();
    const guardTick = testSeconds('GPU_RENTAL_TEST_DEMO_GUARD_TICK_S') ?? DEMO_GUARD_TICK_SECONDS;
    const bootSeconds = testSeconds('GPU_RENTAL_TEST_DEMO_BOOT_S');
    const options = sim.demoSimOptions({ apiKey, guardScript: minifiedWatchdog(), guardTick });
    const running = await sim.startSimulator(bootSeconds ? { ...options, bootSeconds } : options);
    await services.setDemo({ url: running.url, apiKey }, () => running.close());
    services.log.info(`Demo mode on (simulator at ${running.url}).`);
    background(vscode.commands.executeCommand('gpuRental.instances.focus'), services.log, 'opening the Instances view');
    // No toast: the demo starts with a pending price increase, whose notification is the one that
    // needs attention; the views and the status bar say "demo", and their toolbar has Exit Demo Mode.
    tellDone(vscode.l10n.t("{0} Exit Demo Mode (in the views' toolbar) leaves it.", demoMessage()));
    return true;
  } catch (e) {
    throw failedTo(e, (why) => vscode.l10n.t('Could not start demo mode: {0}. Check the "GPU Rental" output channel and try again.', why));
  }
}

export async function exitDemoMode(services: Pick<Services, 'connectionState' | 'log' | 'setDemo'>): Promise<void> {
  if (!services.connectionState.isDemo()) return;
  await services.setDemo(undefined);
  services.log.info('Demo mode off.');
}
