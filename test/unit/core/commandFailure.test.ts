// The one command-error reporter (src/core/vscode/commandFailure.ts): what registerCommands runs
// around every handler. A failure thrown or returned marked is shown once, with the buttons that
// fix it; scripts keep the returned result.
import { recorded } from '../../kit/vscodeFake';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, notSignedIn } from '../../../src/api/errors';
import { CommandFailure, failedTo, failedWith, isCommandFailure, runReported } from '../../../src/core/vscode/commandFailure';

/** Records showErrorMessage calls; the next answer is the button at `pick` (or Escape). */
function errorsShown(pick?: number): Array<{ text: string; buttons: string[] }> {
  const shown: Array<{ text: string; buttons: string[] }> = [];
  (vscode.window as unknown as Record<string, unknown>).showErrorMessage = async (text: string, ...buttons: string[]) => {
    shown.push({ text, buttons });
    return pick === undefined ? undefined : buttons[pick];
  };
  return shown;
}

const logged: string[] = [];
const services = { log: { error: (m: string) => logged.push(m), warn: (m: string) => logged.push(m) } } as never;
const settle = () => new Promise((r) => setImmediate(r));

test('a not-signed-in error thrown by a command: one notice with Set API Key and Try Demo Mode; the button runs its command', async () => {
  const shown = errorsShown(0);
  recorded.executed.length = 0;
  const r = await runReported(services, 'gpuRental.x', async () => {
    throw new ApiError({ kind: 'auth', message: 'no key' });
  });
  await settle();
  assert.equal(r, undefined);
  assert.deepEqual(shown, [{ text: notSignedIn(), buttons: ['Set API Key', 'Try Demo Mode'] }]);
  assert.deepEqual(recorded.executed, [['gpuRental.setApiKey']]);
});

test('a rejected key (HTTP 401): the notice offers Set API Key and Sign In with 2FA', async () => {
  const shown = errorsShown();
  await runReported(services, 'gpuRental.x', async () => {
    throw new ApiError({ kind: 'auth', status: 401, code: 'auth_error', message: 'bad' });
  });
  assert.deepEqual(shown[0]?.buttons, ['Set API Key', 'Sign In with 2FA']);
});

test('a result marked failedWith goes to the script and is reported once, also when an outer command returns it again', async () => {
  const shown = errorsShown(0);
  let fixed = 0;
  const result = { outcome: 'failed' };
  const failure = new CommandFailure('Nothing was rented.', [{ title: 'Show Output Log', run: () => fixed++ }]);
  const inner = () => runReported(services, 'gpuRental.inner', async () => failedWith(result, failure));
  const outer = await runReported(services, 'gpuRental.outer', inner);
  await settle();
  assert.equal(outer, result, 'the script gets the result');
  assert.deepEqual(Object.keys(outer as object), ['outcome'], 'the mark is not part of the result');
  assert.deepEqual(shown, [{ text: 'Nothing was rented.', buttons: ['Show Output Log'] }]);
  assert.equal(fixed, 1);
});

test('a success shows nothing; failedTo words other errors and keeps a CommandFailure as it is', async () => {
  const shown = errorsShown();
  assert.equal(await runReported(services, 'gpuRental.x', async () => 42), 42);
  assert.deepEqual(shown, []);
  const own = new CommandFailure('Pick an instance.');
  assert.equal(
    failedTo(own, (why) => `Could not: ${why}`),
    own,
  );
  assert.equal(failedTo(new Error('disk full'), (why) => `Could not write: ${why}`).message, 'Could not write: disk full');
});

test("another bundle's copy of CommandFailure is recognised by its name and shape", () => {
  const copy = Object.assign(new Error('x'), { name: 'CommandFailure', fixes: [] });
  assert.equal(isCommandFailure(copy), true);
  assert.equal(isCommandFailure(new Error('x')), false);
});
