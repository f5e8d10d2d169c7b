// The demo's fake GPU load ("Set Demo GPU Load…"): a simulated instance has no real GPU, so the
// demo lets the user say what its `nvidia-smi` reports, and so watch the idle guard see a busy
// GPU, then an idle one, warn, and stop the instance. The choices, the typed number and what is
// said afterwards; the call is the API client's setDemoGpuLoad (src/api/demoApi.ts). No `vscode`.
import { gpuLoadProblem } from '../api/demoApi';
import * as l10n from '@vscode/l10n';

/** What the message needs of the instance's idle guard (src/guard/installed.ts reads it from onstart). */
export interface GuardSettingsSeen {
  idleMinutes: number;
  gpuUtilBelow: number;
  action: 'stop' | 'destroy';
}

export interface LoadChoice {
  label: string;
  description: string;
  /** Undefined: the user types a number. */
  util?: number;
}

export const IDLE_LOAD = 0;
export const BUSY_LOAD = 90;

export const LOAD_CHOICES: readonly LoadChoice[] = [
  { label: `Idle (${IDLE_LOAD} %)`, description: 'the job finished: the idle guard starts counting', util: IDLE_LOAD },
  { label: `Busy (${BUSY_LOAD} %)`, description: 'a job is training: the idle guard keeps the instance', util: BUSY_LOAD },
  { label: 'Custom…', description: 'type a percentage from 0 to 100' },
];

/** A typed percentage ("35", "35 %", "12.5"), or why it is not one. */
export function parseLoad(text: string): { util: number } | { problem: string } {
  const t = text.trim().replace(/\s*%$/, '');
  const n = /^\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
  const problem = gpuLoadProblem(n);
  return problem ? { problem: l10n.t('Type {0}, e.g. 3 (idle) or 85 (busy).', problem) } : { util: n };
}

/** What the user is told once the load is set: what the instance's idle guard will make of it. */
export function loadSetMessage(name: string, util: number, guard: GuardSettingsSeen | undefined): string {
  const set = l10n.t('Demo: the GPU of {0} now reports {1} %.', name, util);
  if (!guard)
    return l10n.t('{0} This instance has no idle guard (rented with "guard": false, or before it existed): VS Code only warns while it is idle.', set);
  if (util < guard.gpuUtilBelow) {
    return guard.action === 'destroy'
      ? l10n.t(
          '{0} Its idle guard counts that as idle (below {1} %): it warns first, then destroys the instance after {2} idle min unless an SSH session is open or you choose Keep Running.',
          set,
          guard.gpuUtilBelow,
          guard.idleMinutes,
        )
      : l10n.t(
          '{0} Its idle guard counts that as idle (below {1} %): it warns first, then stops the instance after {2} idle min unless an SSH session is open or you choose Keep Running.',
          set,
          guard.gpuUtilBelow,
          guard.idleMinutes,
        );
  }
  return l10n.t('{0} Its idle guard counts that as busy ({1} % or more) and keeps the instance running.', set, guard.gpuUtilBelow);
}
