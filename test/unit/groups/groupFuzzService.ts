// The group mode of the fault search (groupFuzz.test.ts): the create flow's scripted service
// (../create/fuzzService.ts), with its offers in physical clusters and overlay networks whose
// answers are generated too, drives the REAL group flow; the members share the script's faults
// (their creates, reads, visibility and destroys interleave). After each click: never more than N
// machines; a ready group is exactly N live machines; otherwise every machine still there is named
// by the result (could not be destroyed, or no clear answer) and tracked; nothing else destroyed.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createApiClient } from '../../../src/api/client';
import type { Transport, TransportRequest, TransportResponse } from '../../../src/api/transport';
import { readInflight, resumeInflight } from '../../../src/create/createFlow';
import { runGroupFlow } from '../../../src/groups/groupFlow';
import { readGroups } from '../../../src/groups/groupRecords';
import type { GroupResult } from '../../../src/groups/groupTypes';
import { API_KEY, ScriptedService, fuzzScript, type FuzzScript } from '../create/fuzzService';
import { harness, template, virtualClock, type Harness } from '../create/flowHarness';

export type OverlayAnswer = 'ok' | '5xx-acted' | '5xx-not' | 'timeout-acted' | 'timeout-not' | 'refused';

export interface GroupScript {
  count: 2 | 3;
  base: FuzzScript;
  overlayCreate: OverlayAnswer;
  overlayList: 'ok' | '500';
  overlayDelete: 'ok' | '500';
}

export const groupScript: fc.Arbitrary<GroupScript> = fc.record({
  count: fc.constantFrom<2 | 3>(2, 3),
  // A restart mid-way is the single flow's; a group's members are resumed one by one (docs/multi-node.md).
  base: fuzzScript.map((s) => ({ ...s, restartAtSleep: null, interactive: false })),
  overlayCreate: fc.constantFrom<OverlayAnswer>(
    'ok',
    'ok',
    'ok',
    'ok',
    'ok',
    'ok',
    'ok',
    'ok',
    '5xx-acted',
    '5xx-not',
    'timeout-acted',
    'timeout-not',
    'refused',
  ),
  overlayList: fc.constantFrom<'ok' | '500'>('ok', 'ok', '500'),
  overlayDelete: fc.constantFrom<'ok' | '500'>('ok', 'ok', '500'),
});

/** Offers 11..13 in cluster 7 on three machines, 14 alone in cluster 8 (the scripted service rents only 11..14). */
const OFFERS = [11, 12, 13, 14].map((id, i) => ({
  id,
  machine_id: 900 + id,
  cluster_id: id === 14 ? 8 : 7,
  num_gpus: 1,
  gpu_name: 'RTX 4090',
  dph_total: 0.3 + i / 10,
  verified: true,
  rentable: true,
}));

class Unanswered extends Error {
  override readonly name = 'TransportError';
  readonly kind = 'timeout';
  readonly sent = true;
}

export class GroupService implements Transport {
  readonly inner: ScriptedService;
  overlays: Array<{ overlay_id: number; name: string; cluster_id: number }> = [];
  overlayDeletes = 0;
  constructor(private readonly s: GroupScript) {
    this.inner = new ScriptedService(s.base);
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const path = req.path.split('?')[0]!;
    if (req.method === 'POST' && path === '/api/v0/bundles/') return json(200, { offers: OFFERS });
    if (path === '/api/v0/overlay/') return this.overlay(req);
    return this.inner.request(req);
  }

  private overlay(req: TransportRequest): TransportResponse {
    const body = JSON.parse(req.body ?? '{}') as { name?: string; cluster_id?: number; overlay_id?: number; overlay_name?: string };
    if (req.method === 'GET') return this.s.overlayList === 'ok' ? json(200, this.overlays) : json(500, { success: false, msg: 'boom' });
    if (req.method === 'DELETE') {
      this.overlayDeletes++;
      if (this.s.overlayDelete !== 'ok') return json(500, { success: false, msg: 'boom' });
      this.overlays = this.overlays.filter((o) => o.overlay_id !== body.overlay_id && o.name !== body.overlay_name);
      return json(200, { msg: 'deleted' });
    }
    const a = this.s.overlayCreate;
    if (a === 'refused') return json(400, { success: false, error: 'invalid_args', msg: 'no such cluster' });
    if (a === 'ok' || a.endsWith('-acted'))
      this.overlays.push({ overlay_id: 70 + this.overlays.length, name: body.name ?? '', cluster_id: body.cluster_id ?? 0 });
    if (a.startsWith('timeout')) throw new Unanswered('no answer in time');
    if (a.startsWith('5xx')) return json(502, { success: false, msg: 'bad gateway' });
    return json(200, { msg: 'created' });
  }
}

function json(status: number, body: unknown): TransportResponse {
  return { status, headers: { 'content-type': 'application/json' }, text: JSON.stringify(body) };
}

export interface GroupRun {
  script: GroupScript;
  service: GroupService;
  result: GroupResult;
  flow: Harness;
  watcher: Harness | undefined;
}

export async function runGroupScript(s: GroupScript): Promise<GroupRun> {
  const service = new GroupService(s);
  const client = (log: Parameters<typeof createApiClient>[0]['log']) =>
    createApiClient({
      baseUrl: 'http://127.0.0.1:9',
      credentials: { token: () => API_KEY },
      log,
      timeoutMs: 1000,
      retry: { retries: 1, baseDelayMs: 0, maxDelayMs: 0 },
      pacing: 'off',
      transport: service,
    });
  const flow = harness({ client, clock: virtualClock({ max: 3000 * s.count }) });
  const cancel = new AbortController();
  if (s.base.cancelAtSleep !== null) {
    const clock = flow.ports.clock;
    let n = 0;
    flow.ports.clock = { now: () => clock.now(), sleep: async (ms, signal) => (++n === s.base.cancelAtSleep && cancel.abort(), clock.sleep(ms, signal)) };
  }
  const t = { ...template, count: s.count };
  const result = await runGroupFlow(
    { ...flow.ports, prompts: { pickCluster: async (c) => c[0], confirmGroup: async () => true } },
    { template: t, templatePath: '.gpu/t.json', maxWaitMs: 20 * 60_000, signal: cancel.signal },
  );
  let watcher: Harness | undefined;
  if (readInflight(flow.state).length) {
    service.inner.phase = 'watcher';
    watcher = harness({ client, state: flow.state, clock: virtualClock({ max: 3000 }) });
    await resumeInflight(watcher.ports, { maxWaitMs: 2 * 60 * 60_000 });
  }
  return { script: s, service, result, flow, watcher };
}

/** The group's money invariants for one click. */
export function checkGroupRun(run: GroupRun): void {
  const { service, result, flow, watcher, script } = run;
  const machines = service.inner.machines;
  const live = machines.filter((m) => !m.destroyed);
  const what = `result ${JSON.stringify(result.outcome === 'ready' ? { ...result, instances: result.instances.map((i) => i.id) } : result)}; machines ${JSON.stringify(machines.map((m) => [m.id, m.label, m.destroyed ?? 'live']))}`;
  // Never N+1: each member rents at most once.
  assert.ok(machines.length <= script.count, `${machines.length} machines for a group of ${script.count}; ${what}`);
  if (result.outcome === 'ready') {
    assert.equal(result.instances.length, script.count, what);
    assert.equal(new Set(result.instances.map((i) => i.id)).size, script.count, `a machine counted twice; ${what}`);
    const g = readGroups(flow.state).find((x) => x.name === result.group.name);
    assert.ok(g && g.status === 'ready' && g.members.every((m) => m.instanceId !== undefined), `the ready group is not recorded; ${what}`);
  } else {
    // Not ready: every machine still there is named by the result and tracked (never forgotten).
    const named = result.outcome === 'failed' ? [...result.kept.map(String), ...result.unknown] : [];
    const inflight = readInflight(flow.state);
    const stores = [flow, ...(watcher ? [watcher] : [])];
    for (const m of live) {
      if (m.destroyed) continue;
      assert.ok(
        named.some((n) => n === String(m.id) || n.includes(String(m.id)) || n.includes(`"${m.label}"`)),
        `machine ${m.id} ("${m.label}") is left and the result does not name it; ${what}`,
      );
      const held = stores.some((h) => h.upserts.includes(m.id) && !h.removed.includes(m.id));
      const flying = inflight.some((r) => r.instanceId === m.id || (r.instanceId === undefined && r.label === m.label));
      assert.ok(held || flying, `machine ${m.id} ("${m.label}") is untracked; ${what}`);
    }
    if (service.overlays.length && script.overlayDelete === 'ok' && result.outcome === 'failed')
      assert.ok(service.overlayDeletes > 0, `the network was left; ${what}`);
  }
  // Only the group's own machines are destroyed.
  for (const id of service.inner.deletes)
    assert.ok(
      machines.some((m) => m.id === id),
      `destroyed ${id}, which this click did not create`,
    );
  // The API key never reaches a log line or a message. An instance key only in the result: members
  // share one client, and the scripted service may echo a key it just handed to one member in an
  // error to another before the client has read it (no client can mask a key it never saw).
  const text = [...flow.log.lines, ...flow.progress.map((p) => p.message), result.message].join('\n');
  assert.ok(!text.includes(API_KEY), 'the API key reached the log or a message');
  for (const key of service.inner.delivered) assert.ok(!result.message.includes(key), `an instance key (${key.slice(0, 10)}…) reached the result`);
}
