// Small helpers shared by the benchmark scripts.
import { spawnSync } from 'node:child_process';

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs `node -e code` in a fresh process and returns its stdout parsed as JSON. */
export function nodeJson(code, env = {}) {
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

export function fmtMs(x) {
  return `${x.toFixed(2)} ms`;
}
export function fmtBytes(x) {
  return x >= 1024 * 1024 ? `${(x / 1024 / 1024).toFixed(2)} MB` : `${(x / 1024).toFixed(1)} KB`;
}
