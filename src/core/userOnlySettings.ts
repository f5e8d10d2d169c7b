// Settings a workspace must not set: where the API key is sent, and which files on this
// machine are written or used as keys. A repository's .vscode/settings.json could otherwise
// point the key at any https host, or have ~/.ssh written for it. They are `application`
// scope in package.json (VS Code then ignores workspace values), and they are read through
// userOnly() as well, so a workspace value never counts even where a scope is not enforced.

/** The settings read only from the user's own settings. */
// The budget and the agents' per-hour cap too: a repository must not raise them (or switch off the budget's action) for the user; nor
// allow other extensions to spend or destroy without asking (scripting.allowUnattended).
/** @internal test */
export const USER_ONLY_SETTINGS = [
  'gpuRental.apiBaseUrl',
  'gpuRental.ssh.identityFile',
  'gpuRental.ssh.manageConfig',
  'gpuRental.budget.monthly',
  'gpuRental.budget.onExceeded',
  'gpuRental.agent.maxPricePerHour',
  'gpuRental.scripting.allowUnattended',
] as const;

/** Remote-SSH's setting naming the SSH config file GPU Rental adds its Include line to: read the user's value only. */
/** @internal test */
export const USER_ONLY_FOREIGN_SETTINGS = ['remote.SSH.configFile'] as const;

/** The shape of WorkspaceConfiguration.inspect()'s answer that matters here. */
export interface SettingInspection<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The user's own value, else the default: workspace and folder values never count. */
export function userOnly<T>(i: SettingInspection<T> | undefined): T | undefined {
  return i?.globalValue ?? i?.defaultValue;
}
