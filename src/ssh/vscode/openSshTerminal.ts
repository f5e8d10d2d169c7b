// THE place an SSH session opens in an integrated terminal (Connect's terminal, Open Terminal on
// Instance). The terminal runs dist/sshTerminal.js (src/ssh/explainingTerminal.ts) with VS Code's own
// Node: ssh gets the terminal's tty, and when it fails the cause and one sentence of what to do
// stay on screen instead of the terminal closing with "exit code 255".
import * as vscode from 'vscode';
import { join } from 'node:path';

export interface SshTerminalRequest {
  /** Terminal title, e.g. "SSH gpu-llama-42". */
  name: string;
  /** Arguments for `ssh` (e.g. `['-F', configFile, alias]` or `['-p', '41022', 'root@host']`). */
  args: readonly string[];
}

/** The wrapper next to this bundle (dist/connect.js and dist/sshTerminal.js share dist/). */
export function sshTerminalScript(): string {
  return join(__dirname, 'sshTerminal.js');
}

/** Opens and shows an SSH terminal. */
export function openSshTerminal(req: SshTerminalRequest): vscode.Terminal {
  const t = vscode.window.createTerminal({
    name: req.name,
    // VS Code's executable runs as plain Node with ELECTRON_RUN_AS_NODE (it is Node already in code-server).
    shellPath: process.execPath,
    shellArgs: [sshTerminalScript(), ...req.args],
    env: { ELECTRON_RUN_AS_NODE: '1' },
    iconPath: new vscode.ThemeIcon('terminal'),
  });
  t.show();
  return t;
}
