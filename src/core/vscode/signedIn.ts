import type { Services } from './services';
import { notSignedIn } from './commandFailure';

/** Returns when signed in; otherwise throws the not-signed-in failure (with the buttons that sign in) for the command's reporter. */
export function ensureSignedIn(services: Pick<Services, 'connection'>): void {
  if (!services.connection().signedIn) throw notSignedIn();
}
