// Where "Save to File…" in the backup codes view proposes to save. Outside the demo: the home
// folder. In the demo (its codes belong to a simulated account): the demo's own folder, never the
// real home: `npm run demo`'s throwaway workspace copy, else the demo's temporary HOME (both
// removed when the demo ends).
import { join } from 'node:path';

export const BACKUP_CODES_FILE_NAME = 'gpu-rental-backup-codes.txt';

export interface DemoFolders {
  /** The window's first workspace folder when `npm run demo` opened it (its throwaway copy). */
  demoWorkspace?: string;
  /** The demo's temporary HOME. */
  demoHome: () => string;
}

export function backupCodesSavePath(home: string, demo?: DemoFolders): string {
  return join(demo ? (demo.demoWorkspace ?? demo.demoHome()) : home, BACKUP_CODES_FILE_NAME);
}
