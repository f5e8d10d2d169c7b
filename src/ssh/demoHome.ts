// Where the demo's SSH entries live. The demo's hosts are simulated: they must never reach
// the user's ~/.ssh (not the managed file, not the known_hosts, not an Include question).
// They go into a private temporary HOME instead, created on first use and removed when the
// demo ends; `ssh -F <its config>` reaches them.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANAGED_DIR } from './sshEntryFormat';

/**
 * `npm run demo` sets GPU_RENTAL_DEMO_DIR to a folder inside its own temporary directory, which
 * it deletes when it stops (Ctrl-C, window closed): then even a killed extension host leaves
 * nothing behind. Try Demo Mode uses the system temp folder and removes its HOME on exit.
 */
export const DEMO_DIR_ENV = 'GPU_RENTAL_DEMO_DIR';

export class DemoSshHome {
  private dir: string | undefined;

  constructor(private readonly parent: () => string = () => process.env[DEMO_DIR_ENV] || tmpdir()) {}

  /** The temporary HOME (mode 0700), created on first use. */
  path(): string {
    if (!this.dir) {
      const parent = this.parent();
      mkdirSync(parent, { recursive: true, mode: 0o700 });
      this.dir = mkdtempSync(join(parent, 'gpu-rental-demo-ssh-'));
    }
    return this.dir;
  }

  /** The managed config in it, for `ssh -F`. */
  configFile(): string {
    return join(this.path(), '.ssh', MANAGED_DIR, 'config');
  }

  /** True once something may have been written there. */
  get created(): boolean {
    return this.dir !== undefined;
  }

  /** Removes it with everything in it (entries, known_hosts); the next path() makes a new one. */
  dispose(): void {
    if (!this.dir) return;
    rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
