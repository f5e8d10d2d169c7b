// Which Remote-SSH extension this VS Code can install. Microsoft's Remote - SSH is only in
// Microsoft's marketplace; code-server, VSCodium and other Code-OSS builds use Open VSX, where
// the extension that exists is Open Remote - SSH (same `ssh-remote` authority). Offering an id
// the host cannot install ended in "getaddrinfo ENOTFOUND" thrown at the user.

export interface RemoteSshExtension {
  id: string;
  name: string;
  /** The marketplace the host installs from, for messages. */
  marketplace: string;
}

/** Remote-SSH and the forks known to provide the `ssh-remote` authority. */
export const REMOTE_SSH_EXTENSIONS = ['ms-vscode-remote.remote-ssh', 'jeanp413.open-remote-ssh', 'anysphere.remote-ssh'] as const;

const MICROSOFT: RemoteSshExtension = { id: 'ms-vscode-remote.remote-ssh', name: 'Remote - SSH', marketplace: 'the Visual Studio Marketplace' };
const OPEN_VSX: RemoteSshExtension = { id: 'jeanp413.open-remote-ssh', name: 'Open Remote - SSH', marketplace: 'Open VSX' };
const CURSOR: RemoteSshExtension = { id: 'anysphere.remote-ssh', name: 'Remote - SSH (Cursor)', marketplace: "Cursor's marketplace" };

/**
 * From `vscode.env.appName` and `vscode.env.uriScheme`: Microsoft's builds are "Visual Studio
 * Code" (`vscode`, `vscode-insiders`); everything else built from Code - OSS installs from Open VSX.
 */
export function remoteSshExtensionFor(host: { appName: string; uriScheme: string }): RemoteSshExtension {
  const app = `${host.appName} ${host.uriScheme}`.toLowerCase();
  if (/cursor/.test(app)) return CURSOR;
  if (/^visual studio code\b/.test(host.appName.toLowerCase()) && /^vscode(-insiders|-exploration)?$/.test(host.uriScheme.toLowerCase())) return MICROSOFT;
  return OPEN_VSX;
}
