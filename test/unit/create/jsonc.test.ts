// The template parser (src/create/jsonc.ts, on jsonc-parser): what a reader sees for each kind of
// syntax error, where it points, and the ranges validation puts its problems on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonc } from '../../../src/create/jsonc';
import { pathKey } from '../../../src/create/jsonPath';

test('each syntax error says what to fix and points at the token', () => {
  const cases: Array<[string, RegExp, number]> = [
    ['{ "a": 1 "b": 2 }', /Expected ","/, 9],
    ['{ a: 1 }', /double quotes/, 2],
    ['{ "a" 1 }', /Expected ":"/, 6],
    ['{ "a": "x\ny" }', /Unterminated string|Invalid character/, 7],
    ['{ "a": 1 } 2', /after the end/, 11],
    ['/* open', /Unterminated block comment|Expected a value/, 0],
    ['', /Expected a value|end of file/, 0],
    ['{ "a": "\\q" }', /Invalid escape/, 7],
  ];
  for (const [text, message, offset] of cases) {
    const r = parseJsonc(text);
    assert.equal(r.value, undefined, text);
    assert.equal(r.errors.length, 1, `${text}: ${JSON.stringify(r.errors)}`);
    assert.match(r.errors[0]!.message, message, text);
    assert.ok(r.errors[0]!.length >= 1, 'a diagnostic range is never empty');
    assert.ok(Math.abs(r.errors[0]!.offset - offset) <= 2, `${text}: offset ${r.errors[0]!.offset}, expected near ${offset}`);
  }
});

test('a byte order mark is read as a space: every range stays where the editor shows it', () => {
  const text = '\uFEFF{ "name": "x" }';
  const r = parseJsonc(text);
  assert.deepEqual(r.errors, []);
  const loc = r.locations.get(pathKey(['name']))!;
  assert.equal(text.slice(loc.keyOffset!, loc.keyOffset! + loc.keyLength!), '"name"');
  assert.equal(text.slice(loc.offset, loc.offset + loc.length), '"x"');
});

test('ranges of array items and nested values; a repeated key keeps its last value and range', () => {
  const text = '{ "a": [1, { "b": true }], "a2": null, "k": 1, "k": 2 }';
  const r = parseJsonc(text);
  assert.deepEqual(r.value, { a: [1, { b: true }], a2: null, k: 2 });
  const at = (path: Array<string | number>) => {
    const l = r.locations.get(pathKey(path))!;
    return text.slice(l.offset, l.offset + l.length);
  };
  assert.equal(at([]), text);
  assert.equal(at(['a', 1]), '{ "b": true }');
  assert.equal(at(['a', 1, 'b']), 'true');
  assert.equal(at(['k']), '2');
});

test('64 levels parse, the 65th is refused at its bracket', () => {
  assert.deepEqual(parseJsonc(`${'['.repeat(64)}${']'.repeat(64)}`).errors, []);
  const deep = parseJsonc(`${'['.repeat(65)}${']'.repeat(65)}`);
  assert.match(deep.errors[0]!.message, /Nested too deeply/);
  assert.equal(deep.errors[0]!.offset, 64);
  // brackets inside strings and comments are not levels
  assert.deepEqual(parseJsonc(`{ "a": "${'['.repeat(100)}" /* ${'{'.repeat(100)} */ }`).errors, []);
});
