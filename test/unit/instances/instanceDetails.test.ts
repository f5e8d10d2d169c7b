// Show Instance Details' Markdown: the table stays readable when a value is long (the idle
// guard's packed onstart script is a base64 blob of several KB): long values are folded below it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Instance } from '../../../src/api/types';
import { LONG_VALUE_CHARS, foldBlobs, instanceDetailsMarkdown } from '../../../src/instances/instanceDetails';

const blob = randomBytes(3000).toString('base64');
const inst = {
  id: 42,
  label: 'box',
  actual_status: 'running',
  intended_status: 'running',
  dph_total: 0.5,
  onstart: `mkdir -p /tmp/gpu-rental && echo '${blob}' | base64 -d | gzip -dc >/tmp/gpu-rental/onstart.sh && . /tmp/gpu-rental/onstart.sh\n`,
  image_uuid: 'pytorch/pytorch',
} as unknown as Instance;

test('a base64 onstart does not lead the table: it is folded below it, shortened to its length', () => {
  const md = instanceDetailsMarkdown(inst, 'Cost so far: $0.10');
  const table = md.slice(0, md.indexOf('<details>'));
  assert.ok(!table.includes(blob.slice(0, 60)), 'the blob is not in the table');
  assert.match(table, /^\| onstart \| [\d,]+ characters, folded below \|$/m);
  assert.match(table, /^\| image_uuid \| pytorch\/pytorch \|$/m, 'short values stay in the table');
  assert.ok(md.indexOf('| id | 42 |') < md.indexOf('<details>'));
  const folded = md.slice(md.indexOf('<details>'));
  assert.match(folded, /<summary>onstart \([\d,]+ characters\)<\/summary>/);
  assert.ok(folded.includes(`echo '${blob.slice(0, 12)}…[${blob.length.toLocaleString('en-US')} base64 characters]' | base64 -d`), folded.slice(0, 300));
  assert.ok(md.length < 2000, `the document is ${md.length} characters`);
});

test('folding: short values untouched; a value with backticks gets a longer fence', () => {
  assert.equal(foldBlobs('echo hi'), 'echo hi');
  const md = instanceDetailsMarkdown({ ...inst, onstart: `echo \`\`\`${'x'.repeat(LONG_VALUE_CHARS)}` } as Instance);
  assert.match(md, /^````$/m);
});
