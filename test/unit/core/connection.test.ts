import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ConnectionState, checkBaseUrl } from '../../../src/core/connection';

test('base URL: https anywhere, http only on loopback', () => {
  assert.deepEqual(checkBaseUrl(undefined), { ok: true, url: 'https://console.vast.ai' });
  assert.deepEqual(checkBaseUrl('https://example.com/'), { ok: true, url: 'https://example.com' });
  assert.equal(checkBaseUrl('http://127.0.0.1:8080').ok, true);
  assert.equal(checkBaseUrl('http://localhost:1').ok, true);
  assert.equal(checkBaseUrl('http://[::1]:9').ok, true);
  const bad = checkBaseUrl('http://example.com');
  assert.equal(bad.ok, false);
  assert.match((bad as { message: string }).message, /https/);
  assert.equal(checkBaseUrl('ftp://127.0.0.1').ok, false);
  assert.equal(checkBaseUrl('not a url').ok, false);
});

test('session key wins; a 401 drops it once and falls back to the API key', () => {
  const c = new ConnectionState({ apiKey: 'key-1', sessionKey: 'sess-1' });
  let dropped = 0;
  c.onDidDropSession(() => dropped++);
  assert.equal(c.token(), 'sess-1');
  assert.equal(c.info().session, true);
  const gen = c.generation;
  assert.equal(c.onAuthFailure(), true);
  assert.equal(c.token(), 'key-1');
  assert.equal(dropped, 1);
  assert.ok(c.generation > gen, 'stale responses of the old token can be dropped');
  assert.equal(c.onAuthFailure(), false, 'no second fallback');
});

test('the demo env key is accepted only against a loopback URL and never beats a stored key', () => {
  assert.equal(new ConnectionState({ envDemoKey: 'demo-k', baseUrl: 'https://console.vast.ai' }).token(), undefined);
  assert.equal(new ConnectionState({ envDemoKey: 'demo-k', baseUrl: 'http://127.0.0.1:9' }).token(), 'demo-k');
  assert.equal(new ConnectionState({ envDemoKey: 'demo-k', apiKey: 'real', baseUrl: 'http://127.0.0.1:9' }).token(), 'real');
  // signed in with the env key (npm run demo) is shown as demo; a stored key is the user's own
  assert.equal(new ConnectionState({ envDemoKey: 'demo-k', baseUrl: 'http://127.0.0.1:9' }).info().demo, true);
  assert.equal(new ConnectionState({ envDemoKey: 'demo-k', apiKey: 'real', baseUrl: 'http://127.0.0.1:9' }).info().demo, false);
});

test('no token for a refused URL; demo mode overrides URL and key until left', () => {
  const c = new ConnectionState({ apiKey: 'k', baseUrl: 'http://example.com' });
  assert.equal(c.token(), undefined);
  assert.equal(c.info().signedIn, false);
  c.setDemo({ url: 'http://127.0.0.1:5', apiKey: 'sim' });
  assert.deepEqual(c.info(), { baseUrl: 'http://127.0.0.1:5', signedIn: true, demo: true, session: false });
  assert.equal(c.token(), 'sim');
  c.setDemo(undefined);
  assert.equal(c.info().demo, false);
  assert.equal(c.token(), undefined);
});

test('a URL setting given as a reader is read at its first use, once, and not for a connection without any key', () => {
  let reads = 0;
  const c = new ConnectionState({ baseUrl: () => (reads++, 'http://example.com') });
  assert.equal(c.token(), undefined);
  assert.equal(reads, 0, 'no key: no token, whatever the URL');
  c.setApiKey('key-1');
  assert.equal(c.token(), undefined, 'plain http off loopback is refused');
  assert.deepEqual(c.info(), { baseUrl: 'http://example.com', signedIn: false, demo: false, session: false });
  assert.equal(reads, 1);
  c.setBaseUrl('https://example.com');
  assert.equal(c.token(), 'key-1');
  assert.equal(reads, 1);
});
