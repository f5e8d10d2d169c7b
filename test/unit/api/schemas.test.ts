// Pure parsing and validation: literal JSON fixtures, no network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/mini';
import { deriveState, instanceSchema, instanceListSchema, normalizeExtraEnv, normalizePorts, showInstanceSchema } from '../../../src/api/instanceSchemas';
import { offerListSchema, offerQueryToWire } from '../../../src/api/offerSchemas';
import { validateCreateRequest } from '../../../src/api/createRequestSchema';
import { validateWith } from '../../../src/api/schemaBasics';
import {
  confirmNewRequestSchema,
  tfaLoginRequestSchema,
  tfaSmsRequestSchema,
  tfaRemoveRequestSchema,
  tfaUpdateRequestSchema,
  authorizeConfirmRequestSchema,
  tfaStatusSchema,
} from '../../../src/api/accountSchemas';

const parse = <T>(s: z.ZodMiniType<T>, v: unknown): T => {
  const r = z.safeParse(s, v);
  assert.equal(r.success, true, 'expected the fixture to parse');
  return (r as { data: T }).data;
};

test('ports: Docker map shape with string HostPort, deduplicated across address families', () => {
  const ports = normalizePorts({
    '22/tcp': [
      { HostIp: '0.0.0.0', HostPort: '41000' },
      { HostIp: '::', HostPort: '41000' },
    ],
    '8080/tcp': [{ HostIp: '0.0.0.0', HostPort: '41001' }],
  });
  assert.deepEqual(ports, [
    { container: '22/tcp', hostPort: 41000, hostIp: '0.0.0.0' },
    { container: '8080/tcp', hostPort: 41001, hostIp: '0.0.0.0' },
  ]);
});

test('ports: the spec shape (array of integers), null and garbage', () => {
  assert.deepEqual(normalizePorts([22, '8080']), [
    { container: '22/tcp', hostPort: 22 },
    { container: '8080/tcp', hostPort: 8080 },
  ]);
  assert.equal(normalizePorts(null), null);
  assert.equal(normalizePorts(undefined), undefined);
  assert.equal(normalizePorts('22'), undefined);
  assert.deepEqual(normalizePorts({ '22': [{ HostPort: 'x' }] }), []);
});

test('extra_env: "NAME=value" strings, [name, value] pairs and objects', () => {
  assert.deepEqual(normalizeExtraEnv(['A=1', 'B=x=y', 'C']), [
    ['A', '1'],
    ['B', 'x=y'],
    ['C', ''],
  ]);
  assert.deepEqual(
    normalizeExtraEnv([
      ['A', '1'],
      ['B', 2],
    ]),
    [
      ['A', '1'],
      ['B', '2'],
    ],
  );
  assert.deepEqual(normalizeExtraEnv({ A: '1' }), [['A', '1']]);
  assert.equal(normalizeExtraEnv(null), null);
});

test('state: derived from actual_status + intended_status per the field notes', () => {
  assert.equal(deriveState(null, 'running'), 'provisioning');
  assert.equal(deriveState('created', 'running'), 'provisioning');
  assert.equal(deriveState('loading', 'running'), 'loading');
  assert.equal(deriveState('running', 'running'), 'running');
  assert.equal(deriveState('exited', 'running'), 'exited');
  assert.equal(deriveState('exited', 'stopped'), 'stopped');
  assert.equal(deriveState('stopped', 'stopped'), 'stopped');
  assert.equal(deriveState('offline', 'running'), 'offline');
  assert.equal(deriveState('frozen', 'running'), 'frozen');
  assert.equal(deriveState('rebooting', 'running'), 'rebooting');
  assert.equal(deriveState('melting', 'running'), 'unknown');
  assert.equal(deriveState('unknown', 'running'), 'unknown');
});

test('instance: tolerant parse (numeric strings, nulls, unknown fields, wrong types) keeps what it can', () => {
  const i = parse(instanceSchema, {
    id: '123',
    actual_status: 'spaceship',
    intended_status: 'running',
    ssh_port: '41000',
    ssh_host: 'ssh5.vast.ai',
    dph_total: 0.42,
    gpu_util: null,
    cpu_util: { weird: true },
    brand_new_field: [1, 2, 3],
    ports: null,
    extra_env: [['HF_HOME', '/data']],
    instance: { totalHour: '0.05', diskHour: 0.05 },
    image_runtype: 'ssh ssh_direc ssh_proxy',
  });
  assert.equal(i.id, 123);
  assert.equal(i.state, 'unknown');
  assert.equal(i.actual_status, 'spaceship');
  assert.equal(i.ssh_port, 41000);
  assert.equal(i.gpu_util, null);
  assert.equal(i.cpu_util, undefined);
  assert.equal(i.ports, null);
  assert.deepEqual(i.extra_env, [['HF_HOME', '/data']]);
  assert.deepEqual(i.instance, { totalHour: 0.05, diskHour: 0.05 });
  assert.equal('brand_new_field' in i, false);
});

test('instance: the stopped shape (exited + intended stopped, ssh_port 0) reads as stopped', () => {
  const i = parse(instanceSchema, {
    id: 7,
    actual_status: 'exited',
    intended_status: 'stopped',
    cur_state: 'stopped',
    next_state: 'stopped',
    ssh_port: 0,
    ports: null,
  });
  assert.equal(i.state, 'stopped');
  assert.equal(i.ssh_port, 0);
});

test('instance: null actual_status is provisioning; a missing id is a schema violation', () => {
  assert.equal(parse(instanceSchema, { id: 1, actual_status: null }).state, 'provisioning');
  assert.equal(parse(instanceSchema, { id: 1 }).state, 'provisioning');
  assert.equal(z.safeParse(instanceSchema, { actual_status: 'running' }).success, false);
});

test('instance list: v0 shape and the v1 shape without instances_found', () => {
  const a = parse(instanceListSchema, { instances_found: 1, instances: [{ id: 1, actual_status: 'running', intended_status: 'running' }] });
  assert.equal(a.instances[0]!.state, 'running');
  const b = parse(instanceListSchema, { instances: [{ id: 1 }, { id: 2 }], next_token: '2' });
  assert.equal(b.instances_found, 2);
  assert.equal(z.safeParse(instanceListSchema, { instances: 'none' }).success, false);
});

test('show instance: object, one-element array, and the empty object for an unknown id', () => {
  assert.equal(parse(showInstanceSchema, { instances: { id: 5 } })!.id, 5);
  assert.equal(parse(showInstanceSchema, { instances: [{ id: 6 }] })!.id, 6);
  assert.equal(parse(showInstanceSchema, { instances: {} }), null);
  assert.equal(z.safeParse(showInstanceSchema, { instances: { label: 'no id' } }).success, false);
});

test('offers: numeric strings accepted, reliability2 mapped, required fields enforced', () => {
  const [o] = parse(offerListSchema, {
    offers: [{ id: '11', num_gpus: '2', gpu_name: 'RTX 4090', dph_total: '0.8', reliability2: 0.99, verification: 'verified', extra: 1 }],
  });
  assert.deepEqual({ id: o!.id, n: o!.num_gpus, d: o!.dph_total, r: o!.reliability, v: o!.verified }, { id: 11, n: 2, d: 0.8, r: 0.99, v: true });
  assert.equal(z.safeParse(offerListSchema, { offers: [{ id: 1, num_gpus: 1, dph_total: 1 }] }).success, false);
});

test('2FA status: missing fields default, method records parsed', () => {
  const s = parse(tfaStatusSchema, { tfa_enabled: true, methods: [{ id: 3, method: 'totp', locked_until: null, fail_count: '2' }] });
  assert.equal(s.tfa_enabled, true);
  assert.equal(s.methods[0]!.fail_count, 2);
  assert.equal(s.backup_codes_remaining, 0);
  assert.equal(s.new_method_authorized, false);
});

// ------------------------------------------------------------------ creation validation

const ok = { image: 'pytorch/pytorch:latest', disk: 20, runtype: 'ssh_direct' } as const;
const problemsOf = (req: Record<string, unknown>, interruptible = false) => validateCreateRequest(req, { interruptible });
const hasProblem = (problems: string[], path: string, word: RegExp) =>
  assert.ok(
    problems.some((p) => p.startsWith(path) && word.test(p)),
    `expected a problem at ${path} matching ${word}, got: ${problems.join(' | ')}`,
  );

test('creation: a valid request has no problems; nulls count as not given', () => {
  assert.deepEqual(problemsOf({ ...ok }), []);
  assert.deepEqual(problemsOf({ ...ok, price: null, label: null, onstart: null }), []);
  assert.deepEqual(problemsOf({ template_hash_id: 'abc' }), []);
  assert.deepEqual(problemsOf({ ...ok, price: 0.3 }, true), []);
  assert.deepEqual(problemsOf({ ...ok, runtype: 'ssh_direc ssh_proxy' }), []);
  assert.deepEqual(problemsOf({ ...ok, env: { HF_HOME: '/data', '-p 8080:8080': '1' } }), []);
  assert.deepEqual(problemsOf({ ...ok, volume_info: { volume_id: 4, mount_path: '/data' } }), []);
});

test('creation: image or template_hash_id required', () => {
  hasProblem(problemsOf({ disk: 10 }), 'image', /template_hash_id/);
  hasProblem(problemsOf({ image: '  ' }), 'image', /required/);
});

test('creation: onstart over 4048 characters', () => {
  assert.deepEqual(problemsOf({ ...ok, onstart: 'x'.repeat(4048) }), []);
  hasProblem(problemsOf({ ...ok, onstart: 'x'.repeat(4049) }), 'onstart', /4048/);
});

test('creation: env flag strings, string/array env, bad port mappings', () => {
  hasProblem(problemsOf({ ...ok, env: '-e A=1 -e B=2' }), 'env', /not a string/);
  hasProblem(problemsOf({ ...ok, env: ['A=1'] }), 'env', /not an array/);
  hasProblem(problemsOf({ ...ok, env: { '-e A=1': '' } }), 'env["-e A=1"]', /flag string/);
  hasProblem(problemsOf({ ...ok, env: { 'A=1': '' } }), 'env["A=1"]', /NAME/);
  hasProblem(problemsOf({ ...ok, env: { '-p 8080:8080': 'yes' } }), 'env["-p 8080:8080"]', /"1"/);
  hasProblem(problemsOf({ ...ok, env: { '-p 8080:8080': 1 } }), 'env["-p 8080:8080"]', /"1"/);
  hasProblem(problemsOf({ ...ok, env: { '-p 8080': '1' } }), 'env["-p 8080"]', /host:container/);
  hasProblem(problemsOf({ ...ok, env: { A: 5 } }), 'env["A"]', /string/);
});

test('creation: args_str only with runtype args; unknown runtype', () => {
  hasProblem(problemsOf({ ...ok, args_str: 'python train.py' }), 'args_str', /runtype "args"/);
  assert.deepEqual(problemsOf({ ...ok, runtype: 'args', args_str: 'python train.py' }), []);
  hasProblem(problemsOf({ ...ok, runtype: 'ssh_turbo' }), 'runtype', /unknown/);
});

test('creation: price only for interruptible, required for bid', () => {
  hasProblem(problemsOf({ ...ok, price: 0.5 }, false), 'price', /on-demand/);
  hasProblem(problemsOf({ ...ok }, true), 'price', /required/);
  hasProblem(problemsOf({ ...ok, price: 0 }, true), 'price', /more than 0/);
});

test('creation: disk > 0, volume_info complete, field types, every problem at once', () => {
  hasProblem(problemsOf({ ...ok, disk: 0 }), 'disk', /more than 0/);
  hasProblem(problemsOf({ ...ok, disk: -5 }), 'disk', /more than 0/);
  hasProblem(problemsOf({ ...ok, volume_info: { volume_id: 3 } }), 'volume_info.mount_path', /required/);
  hasProblem(problemsOf({ ...ok, volume_info: { mount_path: '/d' } }), 'volume_info.volume_id', /required/);
  hasProblem(problemsOf({ ...ok, vm: 'yes' }), 'vm', /true or false/);
  hasProblem(problemsOf({ ...ok, target_state: 'paused' }), 'target_state', /running/);
  const many = problemsOf({ disk: 0, onstart: 'x'.repeat(5000), args_str: 'a', price: 1 });
  assert.equal(many.length, 5, many.join(' | '));
});

// ------------------------------------------------------------------ 2FA request validation

test('2FA requests: label length, 6-digit code, backup code format, E.164 phone', () => {
  const base = { tfa_method: 'totp', code: '123456', secret: 'S' };
  assert.deepEqual(validateWith(confirmNewRequestSchema, { ...base, label: 'x'.repeat(30) }), []);
  hasProblem(validateWith(confirmNewRequestSchema, { ...base, label: 'x'.repeat(31) }), 'label', /30/);
  hasProblem(validateWith(confirmNewRequestSchema, { ...base, code: '12345' }), 'code', /6-digit/);
  hasProblem(validateWith(confirmNewRequestSchema, { ...base, code: '12 3456' }), 'code', /6-digit/);
  hasProblem(validateWith(confirmNewRequestSchema, { ...base, tfa_method: 'email' }), 'tfa_method', /e-mail cannot/);
  hasProblem(validateWith(confirmNewRequestSchema, { ...base, tfa_method: 'sms' }), 'phone_number', /SMS/);
  hasProblem(validateWith(confirmNewRequestSchema, { ...base, tfa_method: 'sms', phone_number: '0151 1234567' }), 'phone_number', /E\.164/);
  assert.deepEqual(validateWith(tfaSmsRequestSchema, { phone_number: '+4915112345678' }), []);
  hasProblem(validateWith(tfaSmsRequestSchema, { phone_number: '+49 151 1234' }), 'phone_number', /E\.164/);
  assert.deepEqual(validateWith(tfaLoginRequestSchema, { backup_code: 'ABCD-EFGH-1234' }), []);
  hasProblem(validateWith(tfaLoginRequestSchema, { backup_code: 'ABCDEFGH1234' }), 'backup_code', /XXXX-XXXX-XXXX/);
  hasProblem(validateWith(tfaLoginRequestSchema, { tfa_method: 'totp' }), 'code', /backup code/);
  hasProblem(validateWith(tfaLoginRequestSchema, { tfa_method: 'fax', code: '123456' }), 'tfa_method', /sms/);
  hasProblem(validateWith(tfaRemoveRequestSchema, { backup_code: 'ABCD-EFGH-1234' }), 'target_id', /required/);
  hasProblem(validateWith(tfaUpdateRequestSchema, { label: 'x' }), 'tfa_method_id', /method id/);
  hasProblem(validateWith(authorizeConfirmRequestSchema, { code: '123456' }), 'secret', /./);
});

// ------------------------------------------------------------------ offer search body

test('offer query -> wire body: GB to MB, eq/in, defaults, type, order, limit', () => {
  assert.deepEqual(offerQueryToWire({}), {
    verified: { eq: true },
    rentable: { eq: true },
    external: { eq: false },
    order: [['score', 'desc']],
    type: 'on-demand',
  });
  const w = offerQueryToWire({
    gpuNames: ['RTX 4090', 'A100 SXM4'],
    minNumGpus: 2,
    minGpuRamGb: 24,
    minReliability: 0.98,
    verified: false,
    minDirectPorts: 1,
    maxDphTotal: 1.5,
    type: 'bid',
    order: [['dph_total', 'asc']],
    limit: 10,
  });
  assert.deepEqual(w.gpu_name, { in: ['RTX 4090', 'A100 SXM4'] });
  assert.deepEqual(w.num_gpus, { gte: 2 });
  assert.deepEqual(w.gpu_ram, { gte: 24000 });
  assert.deepEqual(w.reliability, { gte: 0.98 });
  assert.deepEqual(w.verified, { eq: false });
  assert.deepEqual(w.direct_port_count, { gte: 1 });
  assert.deepEqual(w.dph_total, { lte: 1.5 });
  assert.equal(w.type, 'bid');
  assert.deepEqual(w.order, [['dph_total', 'asc']]);
  assert.equal(w.limit, 10);
  assert.deepEqual(offerQueryToWire({ gpuNames: ['H100'], numGpus: 1 }).gpu_name, { eq: 'H100' });
  assert.deepEqual(offerQueryToWire({ gpuNames: ['H100'], numGpus: 1 }).num_gpus, { eq: 1 });
});
