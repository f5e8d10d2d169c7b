// The SSH layer's public surface.
export * from './types';
export { SshConfigWriter, SshConfigError, aliasFor, slug, type SshConfigWriterOptions, type SshEntry, type LocalForward } from './sshConfigWriter';
export { type IncludeStatus, INCLUDE_MARKER } from './userConfig';
export { removeKnownHosts, knownHostsName } from './knownHosts';
export { startEntrySync, type EntrySyncDeps } from './entrySync';
export { sshAddress, type SshAddress } from './address';
export { checkSshTarget, sshCommandLine, sshConfigPath, sshPathProblem, validHost, validPort, validUser, SshValueError, type SshTarget } from './sshValues';
