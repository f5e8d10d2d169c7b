// `npm test` repeats the failed tests of the unit tier, with why, at the end of its summary: a CI log
// is often read from its end only, and a flaky failure must be diagnosable from one run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failedTests, skippedTests } from '../../../scripts/tapReport.mjs';

/** The parent runner's marker would make the child report to it instead of printing its TAP. */
function withoutTestContext(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

test("the summary names each failed test with its error's first lines, and the skipped ones, from node --test's TAP", () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-tap-'));
  try {
    const file = join(dir, 'x.test.mjs');
    writeFileSync(
      file,
      [
        "import { describe, test } from 'node:test';",
        "import assert from 'node:assert/strict';",
        "describe('a suite', () => {",
        "  test('fails here', () => assert.equal(1, 2, 'one is not two'));",
        "  test('passes', () => {});",
        "  test('needs a tool', { skip: 'install it' }, () => {});",
        '});',
        "test('throws', () => { throw new Error('no outcome in 150 s: {\"busy\":null}'); });",
      ].join('\n'),
    );
    const tap = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], {
      encoding: 'utf8',
      env: withoutTestContext(),
    }).stdout;
    const failed = failedTests(tap);
    assert.equal(failed.length, 2, failed.join('\n'));
    assert.match(failed[0]!, /^fails here: one is not two/);
    assert.match(failed[1]!, /^throws: no outcome in 150 s: \{"busy":null\}/);
    assert.deepEqual(skippedTests(tap), ['needs a tool (install it)']);
    assert.deepEqual(failedTests(tap.replace(/not ok/g, 'ok')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
