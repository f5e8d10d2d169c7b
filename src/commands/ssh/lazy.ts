// The SSH half that is loaded on first use (dist/ssh.js): the config writer, connect and the
// Include set-up. The activation bundle keeps only the command registrations and the entry sync.
export { connect } from './connect';
export { ensureInclude } from './include';
export { createWriter } from './settings';
export { sshEntryWriterFor } from './writerPort';
