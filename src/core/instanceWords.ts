// The words every feature uses for an instance: its name, its state (as a category for icons and
// menus, and as a word for people), its GPUs and their RAM, and whether it is interruptible or
// outbid. Low in the house (core), so SSH, costs, logs, the guard and billing name an instance
// the same way without importing the Instances feature.
import type { Instance } from '../api/types';
import * as l10n from '@vscode/l10n';

export type StateCategory = 'running' | 'loading' | 'stopped' | 'failed' | 'unknown';

export function stateCategory(i: Instance): StateCategory {
  switch (i.state) {
    case 'running':
      return 'running';
    case 'provisioning':
    case 'loading':
    case 'rebooting':
      return 'loading';
    case 'stopped':
      return 'stopped';
    case 'exited':
    case 'unknown':
    case 'offline':
      return 'failed';
    default:
      return 'unknown';
  }
}

export function isInterruptible(i: Instance): boolean {
  return i.is_bid === true;
}

/** Stopped by the service while intended running: on an interruptible instance that is an outbid. */
export function isOutbid(i: Instance): boolean {
  return isInterruptible(i) && (i.intended_status ?? '').toLowerCase() === 'running' && i.state === 'stopped';
}

/** The state as a word for people (functions: each is translated when it is shown). */
const STATE_TEXT: Record<string, () => string> = {
  provisioning: () => l10n.t('provisioning'),
  loading: () => l10n.t('loading'),
  running: () => l10n.t('running'),
  stopped: () => l10n.t('stopped'),
  exited: () => l10n.t('failed (exited)'),
  unknown: () => l10n.t('failed (no heartbeat)'),
  offline: () => l10n.t('failed (host offline)'),
  frozen: () => l10n.t('frozen'),
  rebooting: () => l10n.t('rebooting'),
};

/** The state as a word for people: a display text, never compared in code (compare `i.state` or stateCategory). */
export function stateText(i: Instance): string {
  if (isOutbid(i)) return l10n.t('outbid');
  return STATE_TEXT[i.state]?.() ?? i.state;
}

export function isJupyter(i: Instance): boolean {
  return /jupyter/i.test(i.image_runtype ?? '');
}

export function instanceName(i: Instance): string {
  const l = (i.label ?? '').trim();
  return l ? l : `#${i.id}`;
}

export function gpuText(g: { num_gpus?: number | null; gpu_name?: string | null }): string {
  if (!g.gpu_name && !g.num_gpus) return '';
  const name = g.gpu_name || 'GPU';
  return g.num_gpus ? `${g.num_gpus}× ${name}` : name;
}

/** GPU (or CPU) RAM from the service's MB, in decimal GB as the CLI counts: "24.6 GB", "80 GB". The one formatter for it. */
export function formatGpuRam(mb: number | null | undefined): string | undefined {
  return typeof mb === 'number' && mb > 0 ? `${(mb / 1000).toFixed(mb % 1000 === 0 ? 0 : 1)} GB` : undefined;
}

export function perGpu(mb: number | null | undefined): string | undefined {
  const t = formatGpuRam(mb);
  return t && l10n.t('{0} per GPU', t);
}
