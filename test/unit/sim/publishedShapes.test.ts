// The simulator's today-era answers against the shapes the service publishes (its OpenAPI
// reference and the official CLI, service-today.md sections 5, 9 and 10), strictly typed here so
// a drift in the simulator fails. Two documented departures follow what the live service is known
// to send (docs/billing.md "Published shapes"): `ports` is the Docker-shaped object the live
// service sends (the reference says a list), and SSH key dates are the reference's date-time
// strings (no observation shows the live service sending numbers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/mini';
import { useHarness, API_KEY, type Harness } from '../api/helpers';

const num = z.number();
const nnum = z.nullable(z.number());
const dateTime = z.string().check(z.refine((s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s), 'must be an ISO date-time'));
/** Docker's port map: {"22/tcp": [{"HostIp": "0.0.0.0", "HostPort": "41000"}]}, null unless running. */
const dockerPorts = z.nullable(
  z.record(z.string().check(z.regex(/^\d+\/(tcp|udp)$/)), z.array(z.object({ HostIp: z.string(), HostPort: z.string().check(z.regex(/^\d+$/)) }))),
);

const showInstance = z.looseObject({
  instances: z.looseObject({
    id: z.number().check(z.int(), z.positive()),
    actual_status: z.nullable(z.string()),
    intended_status: z.string(),
    label: z.nullable(z.string()),
    ssh_host: z.string(),
    ssh_port: num,
    ports: dockerPorts,
    extra_env: z.array(z.tuple([z.string(), z.string()])),
    start_date: num,
    end_date: num,
    dph_total: num,
    storage_cost: num,
    storage_total_cost: num,
    total_cost: num,
    is_bid: z.boolean(),
    image_runtype: z.string(),
    time_remaining: z.string(),
  }),
});

const sshKey = z.object({ id: z.number(), user_id: z.number(), public_key: z.string(), created_at: dateTime, deleted_at: z.nullable(dateTime) });

const increase = z.object({
  pending_price_increase_id: num,
  contract_id: num,
  host_id: nnum,
  old_gpu_costpersec: nnum,
  new_gpu_costpersec: nnum,
  old_disk_ram_costpersec: nnum,
  new_disk_ram_costpersec: nnum,
  old_bwu_cost: nnum,
  new_bwu_cost: nnum,
  old_bwd_cost: nnum,
  new_bwd_cost: nnum,
  old_platform_fee: nnum,
  new_platform_fee: nnum,
  contract_end_date: nnum,
  ask_end_date: nnum,
  created_at: nnum,
});
const increases = z.object({ success: z.literal(true), count: num, truncated: z.boolean(), pending_price_increases: z.array(increase) });

const page = <T extends z.ZodMiniType>(row: T) =>
  z.object({ success: z.literal(true), count: num, total: num, next_token: z.nullable(z.string()), results: z.array(row) });
const chargeRow = z.object({
  start: num,
  end: num,
  type: z.enum(['instance', 'volume', 'serverless']),
  source: z.string().check(z.regex(/^[a-z]+-\d+$/)),
  description: z.string(),
  amount: num,
  metadata: z.looseObject({ label: z.nullable(z.string()), template_id: nnum }),
  items: z.array(z.object({ type: z.string(), description: z.string(), amount: num })),
});
const invoiceRow = z.looseObject({ id: num, when: num, service: z.string(), amount: num, description: z.string() });

let h: Harness;
useHarness({ instances: 2 }, (x) => (h = x));

async function get(path: string): Promise<unknown> {
  const res = await fetch(`${h.sim.url}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  assert.equal(res.status, 200, path);
  return res.json();
}

function conforms(schema: z.ZodMiniType, v: unknown, what: string): void {
  const r = z.safeParse(schema, v);
  assert.ok(r.success, `${what}: ${r.success ? '' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
}

test('show instance (running and stopped) matches the published fields', async () => {
  const api = h.client();
  const [a, b] = (await api.listInstances()).instances;
  await api.setInstanceState(b!.id, 'stopped');
  conforms(showInstance, await get(`/api/v0/instances/${a!.id}/`), 'running');
  const stopped = (await get(`/api/v0/instances/${b!.id}/`)) as { instances: { ports: unknown } };
  conforms(showInstance, stopped, 'stopped');
  assert.equal(stopped.instances.ports, null, 'null unless running');
});

test('SSH keys: date-time strings as the reference says', async () => {
  const api = h.client();
  await api.addSshKey('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq3vjN0NN9uUVT4nQ9aeOA3zjqVJXkT7XTAjw0ugEWr published@shape');
  const keys = (await get('/api/v0/ssh/')) as unknown[];
  assert.ok(keys.length >= 1);
  for (const k of keys) conforms(sshKey, k, 'ssh key');
  const parsed = await api.listSshKeys();
  assert.equal(typeof parsed[0]!.created_at, 'number', 'the client reads either form');
});

test('pending price increases, charges and invoices match the official CLI shapes', async () => {
  const [a] = (await h.client().listInstances()).instances;
  await h.ctl.priceIncrease(a!.id);
  await h.ctl.advance(86400);
  conforms(increases, await get('/api/v0/instances/pending-price-increases/'), 'pending increases');
  conforms(page(chargeRow), await get('/api/v0/charges/?limit=5'), 'charges');
  conforms(page(invoiceRow), await get('/api/v1/invoices/?limit=5'), 'invoices');
});
