// gpuRental.connect and gpuRental.openTerminal (a lazily loaded bundle, dist/connect.js): entry
// points over src/ssh/vscode/sshConnect.ts, which Copy SSH Command uses too.
export { connect, openTerminalOnInstance } from '../sshConnect';
