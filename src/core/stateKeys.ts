// The keys of everything kept in globalState / workspaceState, in one place so that two
// features never share a key by accident and the activation bundle can read one without
// loading the feature that writes it.

/** globalState: creations rented but not yet running (resumed after a restart). */
export const INFLIGHT_STATE_KEY = 'gpuRental.templates.inflight';
/** globalState: until when (ms) a fresh 2FA verification lets sensitive account changes through. */
export const AUTHORIZED_UNTIL_KEY = 'gpuRental.tfa.authorizedUntil';
/** globalState: the user answered "Not Now" to the Include line question. */
export const INCLUDE_DECLINED_KEY = 'gpuRental.ssh.includeDeclined';
/** workspaceState: the last offer search of this workspace. */
export const OFFER_SEARCH_STATE_KEY = 'gpuRental.lastOfferSearch';
/** globalState: true once the Getting Started walkthrough was opened after install. */
export const WALKTHROUGH_SHOWN_KEY = 'gpuRental.walkthroughShown';
/** globalState: the private key (absolute path) the user registered or picked last; entries and the key check use it. */
export const PICKED_SSH_KEY_STATE_KEY = 'gpuRental.ssh.pickedKey';
