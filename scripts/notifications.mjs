// `node scripts/notifications.mjs`: counts the places in src/ (the simulator excluded) that can
// raise a notification, for CONTRIBUTING's UX section: every call of VS Code's
// showInformationMessage / showWarningMessage / showErrorMessage (by type, and how many are
// modal), plus the calls of the shared helper that raises one for others (showReviewNotice: one
// toast for a kind), and the status bar confirmations (tellDone, tellNothing, setStatusBarMessage)
// that replaced routine success toasts. A failing command throws (or returns a failedWith result)
// and THE command-error reporter (reportCommandError, src/core/vscode/commandFailure.ts, called
// only by registerCommands) shows it: its one showErrorMessage is counted once, and the failures
// handed to it (new CommandFailure, failedTo) are listed apart. `--list` prints each site.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return p === join(src, 'sim') ? [] : files(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** The text of a call's argument list, from the "(" at `open` to its matching ")". */
function args(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

const counts = { information: 0, warning: 0, error: 0, modal: 0, reviewNotice: 0, statusBar: 0, failures: 0 };
const sites = [];
for (const f of files(src)) {
  const text = readFileSync(f, 'utf8');
  const line = (i) => text.slice(0, i).split('\n').length;
  for (const m of text.matchAll(/\.show(Information|Warning|Error)Message\b(?:<[^>]*>)?\(/g)) {
    const kind = m[1].toLowerCase();
    counts[kind]++;
    const modal = /modal:\s*true/.test(args(text, m.index + m[0].length - 1));
    if (modal) counts.modal++;
    sites.push(`${relative(root, f)}:${line(m.index)} ${kind}${modal ? ' (modal)' : ''}`);
  }
  for (const m of text.matchAll(/\bshowReviewNotice\(/g))
    if (!/function showReviewNotice/.test(text.slice(Math.max(0, m.index - 9), m.index + 20))) {
      counts.reviewNotice++;
      sites.push(`${relative(root, f)}:${line(m.index)} review notice (warning)`);
    }
  counts.statusBar += [...text.matchAll(/\b(tellDone|tellNothing|setStatusBarMessage)\(/g)].filter(
    (m) => !/function tell(Done|Nothing)/.test(text.slice(Math.max(0, m.index - 9), m.index + 12)),
  ).length;
  for (const m of text.matchAll(/\bnew CommandFailure\(|\bfailedTo\(/g))
    if (!/function failedTo/.test(text.slice(Math.max(0, m.index - 9), m.index + 12))) {
      counts.failures++;
      sites.push(`${relative(root, f)}:${line(m.index)} failure for the command-error reporter`);
    }
}
const direct = counts.information + counts.warning + counts.error;
if (process.argv.includes('--list')) for (const s of sites) console.log(s);
console.log(
  `notification call sites: ${direct + counts.reviewNotice} (VS Code calls ${direct}: information ${counts.information}, warning ${counts.warning}, error ${counts.error}; modal ${counts.modal}; one-per-kind review notices ${counts.reviewNotice})`,
);
console.log(`status bar confirmations instead: ${counts.statusBar}`);
console.log(`failures handed to the one command-error reporter (not notification call sites): ${counts.failures}`);
