// Logger fakes: one that drops every line, one that keeps them for assertions.
import type { Logger } from '../../src/api/types';

/** A logger that drops every line: for tests that do not look at the log. */
export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export interface CapturingLogger extends Logger {
  /** Every line, as "<level> <message>". */
  lines: string[];
  text(): string;
}

/** A logger that keeps every line (level first) for assertions. */
export function captureLogger(): CapturingLogger {
  const lines: string[] = [];
  const at = (level: string) => (m: string) => {
    lines.push(`${level} ${m}`);
  };
  return { lines, text: () => lines.join('\n'), trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
