// globalState keys the activation bundle reads without loading the 2FA flows.
export const AUTHORIZED_UNTIL_KEY = 'gpuRental.tfa.authorizedUntil';
