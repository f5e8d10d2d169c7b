// dist/sshTerminal.js: the process an "SSH …" terminal runs (see ssh/terminal.ts).
// `node dist/sshTerminal.js <ssh arguments…>`
import { runSsh } from './explainingTerminal';

// Ctrl-C while connecting goes to the whole foreground group: ssh ends, the wrapper stays to explain.
process.on('SIGINT', () => undefined);
runSsh(process.argv.slice(2), { stderr: process.stderr, stdin: process.stdin }).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`\r\nThe SSH terminal failed: ${e instanceof Error ? e.message : 'unknown error'}\r\n`);
    process.exit(255);
  },
);
