// redact(): every pattern masks, ordinary text survives. Fake secrets only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redact, createRedactingLogger, SecretRegistry } from '../../../src/api/redact';
import { ApiError, errorFromResponse } from '../../../src/api/errors';
import { captureLogger } from '../../kit/log';

const gone = (out: string, secret: string) => assert.equal(out.includes(secret), false, 'a secret survived redaction');

test('registered secret values, plain and URL-encoded, longest first', () => {
  const key = 'k3y+with/odd=chars';
  const out = redact(`a ${key} b ${encodeURIComponent(key)} c`, [key, undefined, 'ab']);
  gone(out, key);
  gone(out, encodeURIComponent(key));
  assert.equal(out, 'a *** b *** c');
  assert.equal(redact('ab stays', ['ab']), 'ab stays', 'very short values are not treated as secrets');
});

test('bearer tokens and api_key query values', () => {
  gone(redact('Authorization: Bearer abc.def-123'), 'abc.def-123');
  gone(redact('GET /api/v0/instances?owner=me&api_key=QWERTY123&x=1'), 'QWERTY123');
  assert.match(redact('GET /x?api_key=QWERTY123&x=1'), /&x=1$/);
});

test('JSON values of secret keys: strings, numbers, arrays, escaped quotes', () => {
  const body = JSON.stringify({
    jupyter_token: 'jt-1111',
    instance_api_key: 'ik-2222',
    session_key: 'sk-3333',
    secret: 'JBSWY3DPEHPK3PXP',
    backup_codes: ['AB12-CD34-EF56', 'GH78-IJ90-KL12'],
    backup_code: 'MN34-OP56-QR78',
    code: '123456',
    provisioning_uri: 'otpauth://totp/X:me?secret=JBSWY3DPEHPK3PXP',
    password: 'pa"ss',
    image_login: '-u user -p hunter2 docker.io',
    label: 'keep-me',
  });
  const out = redact(body);
  for (const s of ['jt-1111', 'ik-2222', 'sk-3333', 'JBSWY3DPEHPK3PXP', 'AB12-CD34-EF56', 'GH78-IJ90-KL12', 'MN34-OP56-QR78', '123456', 'pa\\"ss', 'hunter2'])
    gone(out, s);
  assert.match(out, /"label":"keep-me"/);
  gone(redact('{"code": 654321}'), '654321');
});

test('key=value text, otpauth URIs and backup-code shapes anywhere', () => {
  gone(redact('session_key=sk-abc secret=S3CR3T'), 'sk-abc');
  gone(redact('session_key=sk-abc secret=S3CR3T'), 'S3CR3T');
  gone(redact('scan otpauth://totp/Sim:me?secret=ABCDEF&issuer=Sim now'), 'ABCDEF');
  gone(redact('your codes: ZZ11-YY22-XX33'), 'ZZ11-YY22-XX33');
});

test('ordinary text is left alone', () => {
  const t = 'GET /api/v0/instances/123/ -> 404 (12 ms); status code: 404; id 550e8400-e29b-41d4-a716-446655440000; format XXXX-XXXX-XXXX';
  assert.equal(redact(t), t);
});

test('createRedactingLogger masks the secrets known at the time of each line', () => {
  const sink = captureLogger();
  const known: string[] = [];
  const log = createRedactingLogger(sink, () => known);
  log.info('token tok-ABCDEF used');
  known.push('tok-ABCDEF');
  log.warn('token tok-ABCDEF used');
  assert.deepEqual(sink.lines, ['info token tok-ABCDEF used', 'warn token *** used']);
  const throwing = createRedactingLogger(sink, () => {
    throw new Error('no');
  });
  throwing.error('Bearer zzz-999');
  gone(sink.text(), 'zzz-999');
});

test('SecretRegistry keeps a bounded, de-duplicated list', () => {
  const r = new SecretRegistry(2);
  r.add('aaaa', 'aaaa', null, 'bb', 'cccc', 'dddd');
  assert.deepEqual(r.list(), ['cccc', 'dddd']);
});

test('ApiError messages are redacted, including values echoed by the service', () => {
  const e = errorFromResponse(
    'POST',
    '/api/v0/tfa/',
    400,
    JSON.stringify({ success: false, error: 'bad_request', msg: 'bad value sk-echo-777 in session_key=sk-echo-777' }),
    undefined,
    ['sk-echo-777'],
  );
  gone(e.message, 'sk-echo-777');
  gone(e.msg ?? '', 'sk-echo-777');
  gone(e.userMessage(), 'sk-echo-777');
  const v = new ApiError({ kind: 'invalid_request', message: 'x', problems: ['code: must be the 6-digit code'] });
  assert.match(v.userMessage(), /6-digit code.*Correct this value/);
});

test('exact outputs: each pattern masks the value only, its key and the text around it stay', () => {
  assert.equal(redact('Authorization: Bearer abc.def-123, next'), 'Authorization: Bearer ***, next');
  assert.equal(redact('bearer   tok9'), 'bearer   ***', 'any case, any spacing');
  assert.equal(redact('a?api_key=Q1&b=2;token=T2,c'), 'a?api_key=***&b=2;token=***,c');
  assert.equal(
    redact('{"Session_Key" : "s-1", "code":-42, "backup_codes": ["a", "b"], "n": 1}'),
    '{"Session_Key" : "***", "code":"***", "backup_codes": ["***"], "n": 1}',
  );
  assert.equal(redact('{"secret": "a\\"b", "x": "y"}'), '{"secret": "***", "x": "y"}', 'an escaped quote does not end the value');
  assert.equal(redact('{"code": 1.5e3}'), '{"code": "***"}');
  assert.equal(redact('see otpauth://totp/A:b?secret=Z&issuer=A" after'), 'see ***" after');
  assert.equal(redact('codes AB12-CD34-EF56, gh78-ij90-kl12.'), 'codes ***, ***.');
  assert.equal(
    redact('uuid 1234-5678-9abc-def0 and x-AB12-CD34-EF56 and AB12-CD34-EF56-x'),
    'uuid 1234-5678-9abc-def0 and x-AB12-CD34-EF56 and AB12-CD34-EF56-x',
    'parts of longer dash groups are not codes',
  );
  assert.equal(redact('decode=1 barcode=2 code=3'), 'decode=1 barcode=2 code=***', 'whole key names only');
  assert.equal(redact('status code: 404'), 'status code: 404');
});

test('registered secrets: from 4 characters, longest first, URL-encoded too; the loose form only for long ones without whitespace', () => {
  assert.equal(redact('abc abcd', ['abc', 'abcd']), 'abc ***');
  assert.equal(redact('key-ABCDEFGH and ABCDEFGH', ['ABCDEFGH', 'key-ABCDEFGH']), '*** and ***', 'the longer one is masked whole');
  assert.equal(redact('x a%2Fb%2Fc y', ['a/b/c']), 'x *** y');
  assert.equal(redact('a.b*c a-b-c', ['a.b*c']), '*** a-b-c', 'a secret is text, not a pattern');
  // 12 characters or more: found re-cased and split; shorter ones only as they are
  assert.equal(redact('xx ABCDEFGHIJKL yy', ['abcdefghijkl']), 'xx *** yy');
  assert.equal(redact('xx ABCDEF GHIJKL yy', ['abcdefghijkl']), 'xx *** yy');
  assert.equal(redact('xx ABCDEFGHIJK yy', ['abcdefghijk']), 'xx ABCDEFGHIJK yy', '11 characters: exact only');
  assert.equal(redact('xx abcdefghijk yy', ['abcdefghijk']), 'xx *** yy');
  assert.equal(
    redact('xx PASS WORD WITH SPACE yy', ['pass word with space']),
    'xx PASS WORD WITH SPACE yy',
    'a secret with whitespace is matched exactly only',
  );
  assert.equal(redact('xx ab cd ef gh ij kl yy', ['abcdefghijkl', 'zz99']), 'xx *** yy', 'found though a short secret is listed too');
  assert.equal(
    redact('xx ABCDEFGHIJK abcdefghijk ABCDEFGHIJKL yy', ['abcdefghijk', 'abcdefghijkl']),
    'xx ABCDEFGHIJK *** *** yy',
    'a short secret stays exact-only when a long one is listed too',
  );
  assert.equal(redact('nothing here', ['abcdefghijkl']), 'nothing here');
  assert.equal(redact(String(12345), [12345 as unknown as string]), '12345', 'only strings are secrets');
});

test('the redacting logger writes each level to the same level, redacted', () => {
  const sink = captureLogger();
  const log = createRedactingLogger(sink, () => ['sekret-1']);
  log.trace('t sekret-1');
  log.debug('d sekret-1');
  log.info('i sekret-1');
  log.warn('w sekret-1');
  log.error('e sekret-1');
  assert.deepEqual(sink.lines, ['trace t ***', 'debug d ***', 'info i ***', 'warn w ***', 'error e ***']);
});

test('SecretRegistry: the oldest goes first past the bound; short and non-string values are never kept', () => {
  assert.deepEqual(new SecretRegistry().list(), [], 'a new registry holds nothing');
  const one = new SecretRegistry(3);
  one.add('s0-zz');
  assert.deepEqual(one.list(), ['s0-zz'], 'below the bound: exactly what was added');
  const r = new SecretRegistry(3);
  r.add('s1-aa', undefined, 'abc', 's2-bb', 's3-cc');
  assert.deepEqual(r.list(), ['s1-aa', 's2-bb', 's3-cc']);
  r.add('s4-dd');
  assert.deepEqual(r.list(), ['s2-bb', 's3-cc', 's4-dd']);
  r.list().push('mutated');
  assert.deepEqual(r.list(), ['s2-bb', 's3-cc', 's4-dd'], 'list() is a copy');
  const big = new SecretRegistry();
  for (let i = 0; i < 201; i++) big.add(`secret-${i}`);
  assert.equal(big.list().length, 200);
  assert.equal(big.list()[0], 'secret-1');
});
