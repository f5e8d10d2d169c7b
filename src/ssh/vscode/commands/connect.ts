// gpuRental.connect and gpuRental.openTerminal (a lazily loaded bundle, dist/connect.js): entry
// points over src/ssh/vscode/sshConnect.ts, which Copy SSH Command uses too.
import type { Services } from '../../../core/vscode/services';
import { markWalkthroughStep } from '../../../core/vscode/walkthroughProgress';
import { connect as connectTo, openTerminalOnInstance, type ConnectOptions, type ConnectResult } from '../sshConnect';

export { openTerminalOnInstance };

/** Connect; the walkthrough's Connect step ticks only when a window or a terminal really opened. */
export async function connect(services: Services, target?: unknown, o?: ConnectOptions): Promise<ConnectResult> {
  const r = await connectTo(services, target, o);
  if (r.action === 'openFolder' || r.action === 'openEmptyWindow' || r.action === 'terminal') markWalkthroughStep('connected', services.log);
  return r;
}
