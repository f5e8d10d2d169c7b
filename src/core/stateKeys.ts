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
/** globalState: the SSH options of each instance (id as string -> SshOptions), written by the create flow. */
export const SSH_OPTIONS_STATE_KEY = 'gpuRental.sshOptions';
/** globalState: price increases already told about, per server: `{ [baseUrl]: ids }`. */
export const NOTIFIED_INCREASES_KEY = 'gpuRental.billing.notifiedIncreases';
/** globalState: when (ms) the weekly reminder about stopped instances that bill for storage was last shown. */
export const STORAGE_REMINDER_KEY = 'gpuRental.billing.storageReminderAt';
/** globalState: true once the user chose "Don't Show Again" on that reminder (the rows stay marked). */
export const STORAGE_REMINDER_OFF_KEY = 'gpuRental.billing.storageReminderOff';
/** globalState: stopped instances the user chose to keep (no storage reminder for them). */
export const KEEP_STOPPED_KEY = 'gpuRental.billing.keepStopped';
/** globalState: outbid instances already told about. */
export const TOLD_OUTBID_KEY = 'gpuRental.billing.toldOutbid';
/** globalState: instances whose ending host contract was already told about. */
export const TOLD_CONTRACT_END_KEY = 'gpuRental.billing.toldContractEnd';
/** globalState: the budget levels already warned about this month. */
export const BUDGET_WARNED_KEY = 'gpuRental.budget.warned';
/** globalState: instances whose idle-guard warnings the user turned off. */
export const GUARD_NO_WARN_KEY = 'gpuRental.guard.noWarn';
/** globalState: per server, when each guarded instance was first seen stopped and whether its warning was shown. */
export const STOPPED_SINCE_KEY = 'gpuRental.guard.stoppedSince';
/** The stopped-since records of one service and account kind: another connection's instance 5 is another machine. */
export const stoppedSinceKey = (c: { demo: boolean; baseUrl: string }): string => `${STOPPED_SINCE_KEY}:${c.demo ? 'demo' : c.baseUrl}`;
/** globalState: the groups of machines rented for one job (src/groups/groupRecords.ts), from before the first rental until destroyed. */
export const GROUPS_STATE_KEY = 'gpuRental.groups';
