// The idle guard's settings (gpuRental.guard.*), read by the guard that gives them meaning: the
// defaults for templates without a `guard` block and for Rent This Offer.
import type { GuardDefaults } from '../installed';
import { guardDefaultsFrom } from '../settingsScope';
import { gpuRentalSetting } from '../../core/vscode/settings';

export function readGuardSettings(): GuardDefaults {
  // A workspace may make the guard stricter, never turn it off or loosen it (src/guard/settingsScope.ts).
  return guardDefaultsFrom(gpuRentalSetting('guard.enabled'), gpuRentalSetting('guard.idleMinutes'), gpuRentalSetting('guard.gpuUtilBelow'));
}
