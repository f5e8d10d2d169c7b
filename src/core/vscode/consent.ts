// The consent of src/core/unattended.ts as the command handlers read it: the user's
// gpuRental.scripting.allowUnattended and the extension's log.
import type { Services } from './services';
import type { Consent } from '../unattended';

export function consentOf(services: Pick<Services, 'settings' | 'log'>): Consent {
  // A test double of the settings may lack the section: then nothing is skipped.
  return { allowUnattended: services.settings().scripting?.allowUnattended === true, log: services.log };
}
