// The settings editor flags a bad value as it is typed (package.json `pattern`), instead of a
// toast per change (issue 35, audit S1/N2): each pattern accepts exactly what the code that
// reads the setting accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { manifest } from '../repoRoot';
import { checkBaseUrl } from '../../../src/core/connection';
import { sshPathProblem } from '../../../src/ssh/sshValues';

interface Prop {
  pattern?: string;
  patternErrorMessage?: string;
}
const props = (manifest() as { contributes: { configuration: { properties: Record<string, Prop> } } }).contributes.configuration.properties;
const pattern = (key: string): RegExp => {
  const p = props[key]!;
  assert.ok(p.pattern && p.patternErrorMessage, `${key} has a pattern and says what is wrong`);
  return new RegExp(p.pattern);
};

test('gpuRental.apiBaseUrl: the pattern accepts exactly the URLs the connection accepts', () => {
  const re = pattern('gpuRental.apiBaseUrl');
  // Every combination of these parts (about 1,500 URLs), so the check is the same on every run.
  const parts = [
    ['https://', 'http://', 'ftp://', ''],
    ['', 'user@', 'u:p@'],
    ['console.vast.ai', '127.0.0.1', '127.4.5.6', 'localhost', 'sim.localhost', '[::1]', 'example.com', 'localhost.example.com'],
    ['', ':8080', ':443'],
    ['', '/', '/api', '/a/b/', '?x=1', ' '],
  ];
  const urls = parts.reduce<string[]>((acc, p) => acc.flatMap((a) => p.map((x) => a + x)), ['']);
  assert.ok(urls.length > 1000);
  for (const u of urls) assert.equal(re.test(u), checkBaseUrl(u).ok, u);
  for (const u of ['https://console.vast.ai', 'http://127.0.0.1:3000', 'http://[::1]:8080/', '']) assert.ok(re.test(u), u);
  // The URL parser also takes sloppy forms ("https:/host"); the schema flags them, which is stricter and fine.
  for (const u of ['https:/console.vast.ai', 'https:console.vast.ai', 'https:///api']) assert.ok(checkBaseUrl(u).ok && !re.test(u), u);
  for (const u of ['http://console.vast.ai', 'https://me:pw@console.vast.ai', 'console.vast.ai']) assert.ok(!re.test(u), u);
});

test('gpuRental.ssh.identityFile: the pattern refuses what cannot be written into an SSH config', () => {
  const re = pattern('gpuRental.ssh.identityFile');
  const path = fc
    .array(fc.constantFrom('~', '/', '.ssh', 'id_ed25519', ' ', '"', '\n', '\t', '${', 'HOME}', '\\', 'C:', '%', "'"), { maxLength: 6 })
    .map((a) => a.join(''));
  fc.assert(
    fc.property(path, (p) => {
      // A backslash is a Windows path separator: only the platform knows, so the schema lets it through.
      assert.equal(re.test(p), sshPathProblem(p, 'win32') === undefined, JSON.stringify(p));
    }),
    { numRuns: 600 },
  );
  assert.ok(re.test('~/.ssh/id_ed25519') && re.test(''));
});
