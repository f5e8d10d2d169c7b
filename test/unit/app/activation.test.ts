// activate() in a plain Node process with a recording `vscode` (test/kit/vscodeFake.ts): what VS
// Code needs is there when it returns (every contributed command, the three views), and what the
// first paint does not need waits until it has returned (issue #7: activate() under 10 ms; every
// setting read, secret read or status bar item made there cost the extension host milliseconds).
import { recorded, fakeContext, userSettings } from '../../kit/vscodeFake';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { activate } from '../../../src/extension';
import { manifest } from '../repoRoot';

const contributed = (): string[] => manifest<{ contributes: { commands: Array<{ command: string }> } }>().contributes.commands.map((c) => c.command);
const afterActivation = () => new Promise((resolve) => setImmediate(resolve));

test('activate() registers every command and the views before it returns, and starts the rest after', async () => {
  // A stored key for a service on a closed loopback port: signed in, and nothing answers.
  userSettings.set('gpuRental.apiBaseUrl', 'http://127.0.0.1:9');
  const context = fakeContext({ 'gpuRental.apiKey': 'k'.repeat(32) });
  const { services } = activate(context as any);
  // The first request of a command run right after activation waits for the stored key.
  const firstRequest = services.api();
  try {
    const made = [...recorded.calls];
    assert.deepEqual(
      made
        .filter((c) => c.startsWith('commands.registerCommand:'))
        .map((c) => c.split(':')[1])
        .sort(),
      contributed().sort(),
    );
    assert.deepEqual(
      made.filter((c) => c.startsWith('window.createTreeView:')),
      ['gpuRental.instances', 'gpuRental.offers', 'gpuRental.account'].map((v) => `window.createTreeView:${v}`),
    );
    assert.equal(made.filter((c) => c.startsWith('workspace.registerTextDocumentContentProvider:')).length, 2);
    // No setting is read during activation: each at its first use, the base URL by the connection.
    assert.deepEqual(recorded.settings, []);
    assert.deepEqual(recorded.secrets, []);
    assert.deepEqual(recorded.executed, []);
    assert.equal(context.globalState.get('gpuRental.walkthroughShown'), undefined, 'the walkthrough is opened (and marked) after activation');
    assert.ok(!made.includes('window.createStatusBarItem'), 'the status bar item is made when there is something to show');
    assert.ok(!made.includes('workspace.createFileSystemWatcher'), 'the template watcher is made with the first template problems');
    assert.ok(!made.includes('languages.createDiagnosticCollection'), 'template diagnostics are one of the watchers, started after activation');

    await firstRequest;
    await services.ready;
    await afterActivation();
    assert.deepEqual([...recorded.secrets].sort(), ['gpuRental.apiKey', 'gpuRental.sessionKey']);
    assert.equal(recorded.settings[0], 'gpuRental.apiBaseUrl');
    assert.equal(services.connection().signedIn, true);
    assert.ok(recorded.calls.includes('window.createStatusBarItem'), 'signed in: the status bar item shows the costs');
    assert.deepEqual(
      recorded.executed.find((c) => c[1] === 'gpuRental.tfaSession'),
      ['setContext', 'gpuRental.tfaSession', false],
    );
    assert.deepEqual(
      recorded.executed.find((c) => c[1] === 'gpuRental.signedIn'),
      ['setContext', 'gpuRental.signedIn', true],
    );
    assert.ok(
      recorded.executed.some((c) => c[0] === 'workbench.action.openWalkthrough'),
      'the walkthrough opens on the first activation',
    );
    assert.equal(context.globalState.get('gpuRental.walkthroughShown'), true);
    assert.ok(recorded.calls.includes('languages.createDiagnosticCollection'), 'the watchers have started');
  } finally {
    for (const d of context.subscriptions) d.dispose();
  }
});
