// Entry of the integration tests that run inside a real VS Code (code-server via
// test/vscode/runner.mjs, or desktop VS Code via test/vscode/electron.mjs).
// scripts/build.mjs bundles this file (and everything it imports) to out/vscode/index.js.
//
// HOW TO WRITE A TEST FILE
//   1. Create test/vscode/suite/<feature>.test.ts:
//
//        import * as assert from 'node:assert/strict';
//        import * as vscode from 'vscode';
//        import { describe, it, getExtensionApi, simUrl, simControl, waitFor, answer, capture, promptCalls } from './index';
//
//        describe('sidebar', () => {
//          it('lists instances after sign-in', async () => {
//            const { services } = await getExtensionApi();      // activates gpurental.gpu-rental once
//            await signInWithSimKey();                          // your feature's way to sign in
//            await waitFor(() => services.instances.instances.length > 0, 5000, 'instances');
//          }, { timeoutMs: 15_000 });
//
//          it('asks before destroying', async () => {
//            answer('showWarningMessage', 'Destroy');           // scripted answers, one per prompt, in order
//            answer('showQuickPick', 'RTX 4090');               // string: picks the item whose label contains it
//            answer('showInputBox', '123456');                  // checked against validateInput
//            await vscode.commands.executeCommand('gpuRental.destroyInstance');
//            assert.equal(promptCalls[0]?.kind, 'showWarningMessage');
//          });
//        });
//
//   2. Add one import line for it at the bottom of this file (order = run order).
//
// Rules: tests run sequentially, each with a timeout (default 20 s, `{ timeoutMs }` to
// change). A prompt that was not scripted with answer() fails the test (use
// capture('showErrorMessage', ...) to let such prompts resolve undefined and inspect them
// in promptCalls); unused answers fail it too; stubs are restored after every test.
// afterEach(fn) registers cleanup for every test. simUrl() is the simulator started with
// test control by the runner; simControl() drives it (clock, faults, outbox, reset).
// Leave the extension signed out at the end of your tests (afterEach) so the next file
// starts clean. Never put secrets into test names, log() or assertion messages.
// uiCheckpoint(name) hands control to the runner's Playwright steps (see runner.mjs).
//
// Results go to GPU_RENTAL_TEST_RESULTS as JSON lines; the runner prints them and the
// closing `N passed, N failed` line.

export * from './framework';
export { simControl, SimControl } from './sim';
import { runRegistered } from './framework';

/** The @vscode/test-electron contract: resolve when all passed, reject otherwise. */
export function run(): Promise<void> {
  return runRegistered();
}

// ---- test files (keep the export lines above these imports) ----
import './smoke.test';
import './walkthrough.test'; // before any test registers a key, searches or creates (walkthrough events count once)
import './ssh.test';
import './connect.test';
import './templates.test';
import './inflight.test';
import './sidebar.test';
import './tfa.test';
import './ecosystem.test';
import './demo.test';
import './newcomer.test';
import './guard.test';
import './groups.test';
import './guardStopped.test';
import './billing.test';
import './consent.test';
import './moneyTruth.test';
import './ux.test';
import './agentTools.test';
