// The service echoing the API key back: in an error body and in a log line, whole, re-cased or
// split by a line break or spaces (a wrapped message). None of those forms may reach an error
// message, the log or test output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApiClient } from '../../../src/api/client';
import { redact } from '../../../src/api/redact';
import type { Transport } from '../../../src/api/transport';
import { keyCredentials, rejection } from './helpers';
import { captureLogger } from '../../kit/log';

const KEY = '3f9a1c7be2d04a6f8b15c9e07d2a4b6c1e8f0a3d5b7c9e2f4a6b8d0c1e3f5a7b';
const FORMS: Array<[string, string]> = [
  ['as sent', KEY],
  ['upper-cased', KEY.toUpperCase()],
  ['split by a line break', `${KEY.slice(0, 40)}\n${KEY.slice(40)}`],
  ['grouped by spaces', KEY.match(/.{1,8}/g)!.join(' ')],
  ['re-cased and wrapped', `${KEY.slice(0, 20).toUpperCase()}\r\n  ${KEY.slice(20)}`],
];

/** Fails when any form of the key is in `text` (compared without case and whitespace). */
function assertNoKey(text: string, where: string): void {
  const flat = text.toLowerCase().replace(/\s+/g, '');
  assert.ok(!flat.includes(KEY), `${where} carries the API key:\n${text}`);
  // and no long piece of it either (a half is still most of a key)
  assert.ok(!flat.includes(KEY.slice(0, 24)) && !flat.includes(KEY.slice(-24)), `${where} carries part of the API key:\n${text}`);
}

test('redact masks the key in every realistic form', () => {
  for (const [name, form] of FORMS) {
    const out = redact(`Invalid user key: ${form} (check it)`, [KEY]);
    assertNoKey(out, name);
    assert.match(out, /^Invalid user key: \*\*\* \(check it\)$/, name);
  }
  assert.equal(redact('nothing secret here\n  at all', [KEY]), 'nothing secret here\n  at all', 'text without the key is untouched');
});

test('an error body echoing the key in any form: the error, its user message and the log are clean', async () => {
  for (const [name, form] of FORMS) {
    const body = JSON.stringify({ success: false, error: 'auth_error', msg: `Invalid user key ${form}. Check the key.` });
    const transport: Transport = { request: async () => ({ status: 401, headers: { 'content-type': 'application/json' }, text: body }) };
    const log = captureLogger();
    const api = createApiClient({
      baseUrl: 'http://127.0.0.1:9',
      credentials: keyCredentials(KEY),
      log,
      transport,
      pacing: 'off',
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const e = await rejection(api.currentUser());
    assert.equal(e.kind, 'auth', name);
    for (const [where, text] of [
      ['message', e.message],
      ['msg', e.msg ?? ''],
      ['userMessage', e.userMessage()],
      ['log', log.text()],
      ['JSON', JSON.stringify(e)],
    ] as const) {
      assertNoKey(text, `${name}: ${where}`);
    }
  }
});

test('a log line echoing the key in any form (a fetched daemon log) is masked', async () => {
  for (const [name, form] of FORMS) {
    const text = `2026-01-01 12:00:00 docker: pulling with key=${form}\nauth header was ${form}\n`;
    const transport: Transport = { request: async () => ({ status: 200, headers: { 'content-type': 'text/plain' }, text }) };
    const log = captureLogger();
    const api = createApiClient({ baseUrl: 'http://127.0.0.1:9', credentials: keyCredentials(KEY), log, transport, pacing: 'off' });
    const fetched = await api.fetchLogs('https://bucket.example/log.txt', { sleep: async () => undefined });
    assertNoKey(fetched, `${name}: fetched log`);
    assert.match(fetched, /docker: pulling/, 'the rest of the log stays');
    assertNoKey(log.text(), `${name}: client log`);
  }
});
