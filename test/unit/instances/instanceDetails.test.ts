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
  assert.match(table, /^\| On-start script \| `onstart` \| [\d,]+ characters, folded below \|$/m);
  assert.match(table, /^\| Image \| `image_uuid` \| pytorch\/pytorch \|$/m, 'short values stay in the table');
  assert.ok(md.indexOf('| Instance ID | `id` | 42 |') < md.indexOf('<details>'));
  const folded = md.slice(md.indexOf('<details>'));
  assert.match(folded, /<summary>On-start script \(onstart, [\d,]+ characters\)<\/summary>/);
  assert.ok(folded.includes(`echo '${blob.slice(0, 12)}…[${blob.length.toLocaleString('en-US')} base64 characters]' | base64 -d`), folded.slice(0, 300));
  assert.ok(md.length < 2000, `the document is ${md.length} characters`);
});

test('folding: short values untouched; a value with backticks gets a longer fence', () => {
  assert.equal(foldBlobs('echo hi'), 'echo hi');
  const md = instanceDetailsMarkdown({ ...inst, onstart: `echo \`\`\`${'x'.repeat(LONG_VALUE_CHARS)}` } as Instance);
  assert.match(md, /^````$/m);
});

// Every value of the document comes from the service or the host: a hostile one must not render
// as an image, a link, HTML or a command link in the Markdown preview, and no secret shows.
const HOSTILE = [
  '![pixel](https://evil.example/p.png)',
  '[Click](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D)',
  '<img src=x onerror=alert(1)>',
  '<a href="https://evil.example">x</a>',
  'https://evil.example/x',
  'www.evil.example',
  'mail me@evil.example',
  '[ref]: https://evil.example',
  '| injected | cell |',
];

/** What the rendered Markdown would make a link, image or HTML of: an unescaped construct. */
function renders(md: string): string[] {
  const found: string[] = [];
  let fence = '';
  for (const line of md.split('\n')) {
    // Inside a fenced block everything is code; only the fence that opened it closes it.
    const f = /^(`{3,})/.exec(line)?.[1];
    if (f && (!fence || (f.length >= fence.length && line.trim() === f))) {
      fence = fence ? '' : f;
      continue;
    }
    if (fence || /^<\/?(details|summary)>/.test(line)) continue;
    const bare = line.replace(/\\./g, '');
    if (/!\[|\]\(|<[a-z/!]/i.test(bare.replace(/<\/?(details|summary)>/g, ''))) found.push(line);
    if (/[a-z]+:\/\/|www\.|@[\w-]+\./i.test(bare)) found.push(line);
    if (/^\[[^\]]*\]:/.test(bare)) found.push(line);
  }
  return found;
}

test('hostile service and host strings render as text: no image, link, HTML or command link', () => {
  for (const h of HOSTILE) {
    const hostile = {
      ...inst,
      label: h,
      onstart: `echo ${h}`,
      image_uuid: h,
      status_msg: h,
      template_name: h,
      gpu_name: h,
      geolocation: h,
      webpage: h,
      logo: h,
      image_args: [h],
    } as unknown as Instance;
    const md = instanceDetailsMarkdown(hostile, 'Cost so far: $0.10', { details: [`Idle guard: ${h}`], log: `${h}\n\`\`\`\n${h}` });
    assert.deepEqual(renders(md), [], `${h} rendered:\n${md}`);
    const table = md.slice(md.indexOf('| Field | API name | Value |'));
    for (const row of table.split('\n').filter((l) => l.startsWith('| ')))
      assert.equal(row.replace(/\\\|/g, '').split('|').length, 5, `one cell per column: ${row}`);
  }
});

test('renders() finds what the preview would render (so the test above can fail)', () => {
  assert.deepEqual(renders('| label | ![x](https://e.x/p.png) |').length > 0, true);
  assert.deepEqual(renders('see https://evil.example').length > 0, true);
  assert.deepEqual(renders('<img src=x>').length > 0, true);
  assert.deepEqual(renders('\\!\\[x\\]\\(https\\://e\\.x\\)'), []);
});

test('onstart, guard log and every field mask template secrets, known secret values and secret flags', () => {
  const known = 'tmpl-secret-Value-123';
  const onstart = [
    `export HF_TOKEN=hf_${'a'.repeat(30)}`,
    `echo ${known} > /root/.cfg`,
    'docker login -u me -p s3cr3tPassw0rd ghcr.io',
    'curl --token=abcdefg12345 https://x',
    `DB_PASSWORD='pa ss'`,
    `# a long script: shown folded below the table, as code (${'x'.repeat(LONG_VALUE_CHARS)})`,
  ].join('\n');
  const md = instanceDetailsMarkdown(
    { ...inst, onstart, image_args: ['--api-key', 'k-123456789'] } as unknown as Instance,
    undefined,
    { details: ['Idle guard: watching'], log: `sent ${known}` },
    [known],
  );
  for (const secret of [known, 'hf_aaaa', 's3cr3tPassw0rd', 'abcdefg12345', 'pa ss', 'k-123456789'])
    assert.ok(!md.includes(secret), `${secret} shows in:\n${md}`);
  assert.match(md, /HF_TOKEN=\*\*\*/);
  assert.match(md, /-p \*\*\*/);
  assert.match(md, /echo \*\*\* > \/root\/\.cfg/, 'the script around a secret stays readable');
});
