// What `npm test`'s summary says about a node --test TAP report: the skipped tests and the failed ones.
/**
 * The tests a TAP report marks skipped, as `name (reason)`: a test whose tool is missing is
 * skipped locally (in CI it fails instead, test/unit/tools.ts), and the summary names it.
 */
export function skippedTests(tap) {
  return [...tap.matchAll(/^\s*ok \d+ - (.*?) # SKIP\b ?(.*)$/gm)].map((m) => (m[2] ? `${m[1]} (${m[2]})` : m[1]));
}

/**
 * The failed tests of a TAP report, each as `name: the error's first lines`, suites whose only fault is a failed
 * test left out: printed again in the summary, so the end of a long CI log says what failed and why.
 */
export function failedTests(tap) {
  const lines = tap.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*not ok \d+ - (.*)$/.exec(lines[i]);
    if (!m) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*((not )?ok \d+ - |\.\.\.$)/.test(lines[end])) end++;
    const block = lines.slice(i + 1, end);
    if (block.some((l) => /failureType: 'subtestsFailed'/.test(l))) continue;
    const at = block.findIndex((l) => /^\s*error: /.test(l));
    const text = [];
    if (at >= 0) {
      const indent = /^\s*/.exec(block[at])[0].length;
      const first = block[at].trim().replace(/^error: (\|-?)?/, '');
      text.push(first.replace(/^'(.*)'$/, '$1'));
      for (const l of block.slice(at + 1)) {
        if (/^\s*/.exec(l)[0].length <= indent && l.trim()) break;
        text.push(l.trim());
      }
    }
    out.push(`${m[1]}: ${text.filter(Boolean).slice(0, 6).join(' / ')}`);
  }
  return out;
}
