// The home whose ~/.ssh GPU Rental manages and reads keys from. GPU_RENTAL_SSH_HOME lets
// integration tests (which share the extension host process) point it at a temporary directory.
import { homedir } from 'node:os';

export function sshHome(): string {
  return process.env.GPU_RENTAL_SSH_HOME || homedir();
}
