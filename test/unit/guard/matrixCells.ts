// The idle guard's published scenario matrix: each signal, a situation, and what the real
// watchdog does there. matrix.test.ts runs every cell under dash and busybox sh against the
// simulator; docs/idle-guard.md carries the table rendered from these rows (a test compares).
export type Outcome = 'keeps running' | 'stops' | 'cannot judge';

export interface Cell {
  signal: string;
  situation: string;
  outcome: Outcome;
}

export const CELLS = [
  { signal: 'GPU', situation: 'the busiest GPU exactly at the threshold (5 %)', outcome: 'keeps running' },
  { signal: 'GPU', situation: 'every GPU below the threshold (4 %)', outcome: 'stops' },
  { signal: 'GPU', situation: 'nvidia-smi missing on a machine rented with GPUs', outcome: 'cannot judge' },
  { signal: 'GPU', situation: 'nvidia-smi failing (an error, no number)', outcome: 'cannot judge' },
  { signal: 'GPU', situation: 'nvidia-smi hanging (killed after its time limit)', outcome: 'cannot judge' },
  { signal: 'GPU', situation: 'no nvidia-smi on a machine rented without GPUs', outcome: 'stops' },
  { signal: 'SSH', situation: 'an open connection to sshd on port 22', outcome: 'keeps running' },
  { signal: 'SSH', situation: 'an open connection to an sshd listening on another port', outcome: 'keeps running' },
  { signal: 'SSH', situation: 'sshd listening, no connection', outcome: 'stops' },
  { signal: 'SSH', situation: 'an open connection with keepWhileSsh false', outcome: 'stops' },
  { signal: 'Jupyter', situation: 'a kernel running code (Jupyter REST API, its token)', outcome: 'keeps running' },
  { signal: 'Jupyter', situation: 'the Jupyter API accepts and never answers (a hung server)', outcome: 'keeps running' },
  { signal: 'Jupyter', situation: 'every kernel idle, no connection', outcome: 'stops' },
  { signal: 'Jupyter', situation: "an open connection to Jupyter's port (a browser tab)", outcome: 'keeps running' },
  { signal: 'Heartbeat', situation: 'the heartbeat file touched recently', outcome: 'keeps running' },
  { signal: 'Heartbeat', situation: 'the heartbeat file older than its limit', outcome: 'stops' },
  { signal: 'busyWhile', situation: 'a process whose command line holds "python train.py"', outcome: 'keeps running' },
  { signal: 'busyWhile', situation: 'no such process', outcome: 'stops' },
  { signal: 'Snooze', situation: 'Keep Running (the snooze file) not yet over', outcome: 'keeps running' },
  { signal: 'Tools', situation: 'no curl on the image', outcome: 'cannot judge' },
  { signal: 'Cap', situation: 'maxHours reached while the GPU is busy', outcome: 'stops' },
] as const satisfies readonly Cell[];

const WORDS: Record<Outcome, string> = {
  'keeps running': 'keeps running',
  stops: 'stops it',
  'cannot judge': 'cannot judge: keeps it running and says why',
};

/** The Markdown table docs/idle-guard.md carries between its matrix markers. */
export function matrixTable(cells: readonly Cell[] = CELLS): string {
  const rows = cells.map((c) => `| ${c.signal} | ${c.situation} | ${WORDS[c.outcome]} |`);
  return ['| Signal | Situation | The guard (dash and busybox sh, tested) |', '|---|---|---|', ...rows].join('\n');
}

export const MATRIX_START = '<!-- scenario matrix: generated from test/unit/guard/matrixCells.ts -->';
export const MATRIX_END = '<!-- end of scenario matrix -->';
