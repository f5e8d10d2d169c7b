import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { remoteSshExtensionFor } from '../../../src/ssh/remoteSsh';

test("the Remote-SSH extension offered is one the host's marketplace has", () => {
  assert.equal(remoteSshExtensionFor({ appName: 'Visual Studio Code', uriScheme: 'vscode' }).id, 'ms-vscode-remote.remote-ssh');
  assert.equal(remoteSshExtensionFor({ appName: 'Visual Studio Code - Insiders', uriScheme: 'vscode-insiders' }).id, 'ms-vscode-remote.remote-ssh');
  // code-server, VSCodium and plain Code - OSS install from Open VSX.
  assert.equal(remoteSshExtensionFor({ appName: 'code-server', uriScheme: 'code-oss' }).id, 'jeanp413.open-remote-ssh');
  assert.equal(remoteSshExtensionFor({ appName: 'VSCodium', uriScheme: 'vscodium' }).id, 'jeanp413.open-remote-ssh');
  assert.equal(remoteSshExtensionFor({ appName: 'Code - OSS', uriScheme: 'code-oss' }).marketplace, 'Open VSX');
  assert.equal(remoteSshExtensionFor({ appName: 'Cursor', uriScheme: 'cursor' }).id, 'anysphere.remote-ssh');
});
