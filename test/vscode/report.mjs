// Printing of the suite's JSON-lines results, shared by runner.mjs and electron.mjs.

/** Prints one record; returns it when it is a test result. */
export function printRecord(rec, openedAt = Date.now()) {
  const out = (s) => process.stdout.write(s);
  if (rec.type === 'start') {
    out(
      `\nVS Code ${rec.vscodeVersion} (${rec.appName}, ${rec.uiKind}, remote: ${rec.remoteName}) — ${rec.tests} test(s), suite started ${Date.now() - openedAt} ms after page open\n`,
    );
  } else if (rec.type === 'test') {
    printTest(rec);
    return rec;
  } else if (rec.type === 'metric') {
    out(`    metric ${rec.name} = ${rec.value} ${rec.unit ?? ''}\n`);
  } else if (rec.type === 'log') {
    out(`    · ${rec.message}\n`);
  }
  return undefined;
}

export function printTest(r) {
  const mark = r.status === 'passed' ? '✓' : r.status === 'skipped' ? '-' : '✗';
  const extra = r.status === 'skipped' ? ` (skipped: ${r.reason})` : ` (${r.durationMs} ms)`;
  process.stdout.write(`  ${mark} ${r.name}${extra}\n`);
  if (r.status === 'failed' && r.error) process.stdout.write(String(r.error).replace(/^/gm, '      ') + '\n');
}

/** Parses complete JSON lines, skipping anything that is not JSON. */
export function parseLines(text) {
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** Prints the closing line and returns the counts. */
export function summarize(tests) {
  const passed = tests.filter((t) => t.status === 'passed').length;
  const failed = tests.filter((t) => t.status === 'failed').length;
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return { passed, failed };
}
