// globalState keys the activation bundle reads without loading the create flow.
export const INFLIGHT_STATE_KEY = 'gpuRental.templates.inflight';
