// Plumbing shared by unit tests of several folders (folder-specific harnesses live next to their tests).
import type { Logger } from '../../src/api/types';

/** A logger that drops every line: for tests that do not look at the log. */
export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
