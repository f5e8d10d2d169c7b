// The 2FA commands, loaded on first use (dist/tfa.js) with the flows they drive.
export { addTotp } from './addTotp';
export { addSms } from './addSms';
export { regenerateBackupCodes } from './regenerateBackupCodes';
export { signIn } from './signIn';
export { signOut } from './signOut';
export { renameMethod } from './renameMethod';
export { makePrimary } from './makePrimary';
export { removeMethod } from './removeMethod';
export { refresh } from './refresh';
