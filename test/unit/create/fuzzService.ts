// The model-based fault search's scripted service (createFuzz.test.ts, fuzzRegressions.test.ts,
// `npm run fuzz`): an in-process transport under the REAL client, whose every answer and whose
// visibility per read come from a generated script: create answers (success, each refusal of the
// rule table, and answers that prove nothing, whether the service acted or not), read faults
// (429, 5xx, timeouts, resets, unreadable and 2xx refusals), replica lag and flapping, late
// appearance, a destroy from elsewhere, failed boots, destroy faults, the user's answers and a
// VS Code restart in the middle (the flow's host stops; the in-flight watcher resumes from the
// records). After each run the money invariants are checked (checkRun).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createApiClient } from '../../../src/api/client';
import { PROVEN_REFUSALS } from '../../../src/api/rentAgain';
import type { Transport, TransportRequest, TransportResponse } from '../../../src/api/transport';
import { readInflight, resumeInflight, runCreateFlow, type CreateFlowResult, type FailedBootAnswer, type NotFoundAnswer } from '../../../src/create/createFlow';
import { harness, template, virtualClock, type Harness } from './flowHarness';

export const API_KEY = 'fz-apikey-7f3c9a1e5b2d4c6e8f0a1b2c3d4e5f60';
const JUPYTER = 'fz-jupyter-0b1c2d3e4f5a6b7c';
const iak = (id: number) => `fz-iak-${id.toString(36)}-e1d2c3b4a5`;

// ---------------------------------------------------------------- the script

/** A create answer that proves nothing, as the service may send it whether it acted or not. */
const UNPROVEN = [
  'timeout',
  'reset',
  'malformed',
  '5xx',
  '5xx-bare',
  'unlisted-4xx',
  ...['rate_limit_exceeded', ...new Set(PROVEN_REFUSALS.flatMap((r) => (r.code ? [r.code] : [])))].map((c) => `2xx:${c}`),
] as const;
const REFUSALS = PROVEN_REFUSALS.filter((r): r is typeof r & { status: number } => r.status !== 'not-sent');

export type CreateAnswer = { kind: 'ok' } | { kind: 'refusal'; row: number } | { kind: 'unproven'; acted: boolean; answer: string };
export type ReadFault = 'ok' | '429' | '500' | '503-bare' | 'timeout' | 'reset' | 'malformed' | '2xx-refusal';
export type DestroyAnswer = 'ok' | '5xx' | 'timeout-acted' | 'timeout-not';

export interface FuzzScript {
  /** confirm: true (a click; the prompts answer) or false (a script). */
  interactive: boolean;
  /** Answers to the create requests in turn; then success. */
  creates: CreateAnswer[];
  /** Faults of the show and list requests in turn; then plain answers. */
  reads: ReadFault[];
  /** Whether each read of a machine shows it, in turn (lag, flapping, late appearance); then shown. */
  visibility: boolean[];
  /** A machine not shown by show-instance answers 404 (else {"instances": null}). */
  hidden404: boolean;
  /** Reads of a machine showing "loading" before it settles into `final`. */
  bootReads: number;
  final: 'running' | 'exited' | 'stopped';
  /** The first machine is destroyed from elsewhere after this many reads. */
  outsideDestroyAfter: number | null;
  /** The user's answers when a rental's fate is unknown; then Stop. */
  notFound: NotFoundAnswer[];
  keepOrDestroy: 'keep' | 'destroy';
  /** The user's answers when a rented machine failed while starting; then Keep It. */
  failedBoot: FailedBootAnswer[];
  destroys: DestroyAnswer[];
  /** The window reloads at the flow's n-th wait (it never wakes); the watcher resumes from the records. */
  restartAtSleep: number | null;
  /** The user cancels the flow at its n-th wait (then keep or destroy is asked, if a machine was rented). */
  cancelAtSleep: number | null;
  /** Error bodies echo the API key and the instance key back. */
  echoKeys: boolean;
  /** The list ignores its filters (answers every machine, whatever the id or label asked). */
  unfiltered: boolean;
}

export const fuzzScript: fc.Arbitrary<FuzzScript> = fc.record({
  interactive: fc.boolean(),
  creates: fc.array(
    fc.oneof(
      fc.constant<CreateAnswer>({ kind: 'ok' }),
      fc.nat(REFUSALS.length - 1).map((row): CreateAnswer => ({ kind: 'refusal', row })),
      fc.record({ kind: fc.constant('unproven' as const), acted: fc.boolean(), answer: fc.constantFrom(...UNPROVEN) }),
    ),
    { maxLength: 4 },
  ),
  reads: fc.array(fc.constantFrom<ReadFault>('ok', 'ok', '429', '500', '503-bare', 'timeout', 'reset', 'malformed', '2xx-refusal'), { maxLength: 24 }),
  visibility: fc.array(fc.boolean(), { maxLength: 40 }),
  hidden404: fc.boolean(),
  // short boots, and now and then one longer than the flow waits (it times out and asks keep or destroy)
  bootReads: fc.oneof({ arbitrary: fc.nat(5), weight: 4 }, { arbitrary: fc.integer({ min: 100, max: 200 }), weight: 1 }),
  final: fc.constantFrom<FuzzScript['final']>('running', 'running', 'exited', 'stopped'),
  outsideDestroyAfter: fc.option(fc.nat(30), { freq: 3 }),
  notFound: fc.array(fc.constantFrom<NotFoundAnswer>('wait', 'stop', 'rent-again'), { maxLength: 3 }),
  keepOrDestroy: fc.constantFrom<'keep' | 'destroy'>('keep', 'destroy'),
  failedBoot: fc.array(fc.constantFrom<FailedBootAnswer>('destroy-and-rent-next', 'destroy', 'keep'), { maxLength: 3 }),
  destroys: fc.array(fc.constantFrom<DestroyAnswer>('ok', 'ok', '5xx', 'timeout-acted', 'timeout-not'), { maxLength: 3 }),
  restartAtSleep: fc.option(fc.nat(40), { freq: 3 }),
  cancelAtSleep: fc.option(fc.nat(40), { freq: 4 }),
  echoKeys: fc.boolean(),
  unfiltered: fc.boolean(),
});

/** A script with no fault and every answer plain: the named regressions change only what they need. */
export const plainScript: FuzzScript = {
  interactive: false,
  creates: [],
  reads: [],
  visibility: [],
  hidden404: false,
  bootReads: 1,
  final: 'running',
  outsideDestroyAfter: null,
  notFound: [],
  keepOrDestroy: 'keep',
  failedBoot: [],
  destroys: [],
  restartAtSleep: null,
  cancelAtSleep: null,
  echoKeys: false,
  unfiltered: false,
};

// ---------------------------------------------------------------- the service

interface Machine {
  id: number;
  label: string;
  reads: number;
  destroyed?: 'us' | 'outside';
  /** A read showed it failed while booting (the user is asked; nothing happens to it unasked). */
  terminalShown: boolean;
}

class Timeout extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: 'timeout' | 'network',
    readonly sent: boolean,
  ) {
    super(kind === 'timeout' ? 'no answer in time' : 'socket hang up');
  }
}

const OFFERS = [11, 12, 13, 14].map((id, i) => ({
  id,
  machine_id: 900 + id,
  num_gpus: 1,
  gpu_name: 'RTX 4090',
  dph_total: 0.3 + i / 10,
  verified: true,
  rentable: true,
}));

export class ScriptedService implements Transport {
  /** Machines this click created. */
  readonly machines: Machine[] = [];
  /** A machine of the account that this click did not create (another job): never to be touched. */
  private readonly other: Machine = { id: 4321, label: 'Unit-test-box-othr', reads: 99, terminalShown: false };
  readonly deletes: number[] = [];
  private ci = 0;
  private ri = 0;
  private vi = 0;
  private di = 0;
  private totalReads = 0;

  constructor(private readonly s: FuzzScript) {}

  async request(req: TransportRequest): Promise<TransportResponse> {
    await Promise.resolve();
    const path = req.path.split('?')[0]!;
    if (req.method === 'POST' && path === '/api/v0/bundles/') return json(200, { offers: OFFERS });
    let m: RegExpExecArray | null;
    if (req.method === 'PUT' && (m = /^\/api\/v0\/asks\/(\d+)\/$/.exec(path)))
      return this.create(Number(m[1]), JSON.parse(req.body ?? '{}') as { label?: string });
    if (req.method === 'PUT' && /^\/api\/v0\/instances\/request_logs\/\d+\/$/.test(path))
      return json(200, { success: true, result_url: 'https://logs.invalid/x' });
    if (req.method === 'DELETE' && (m = /^\/api\/v0\/instances\/(\d+)\/$/.exec(path))) return this.destroy(Number(m[1]));
    if (req.method === 'GET' && (m = /^\/api\/v0\/instances\/(\d+)\/$/.exec(path))) return this.read(() => this.show(Number(m![1])));
    if (req.method === 'GET' && path === '/api/v1/instances/') return this.read(() => this.list(req.path));
    return json(404, { success: false, error: 'not_found', msg: `no route ${req.method} ${path}` });
  }

  /** Instance keys the flow's client was handed (a create answer it read): a client cannot mask a key it never saw. */
  readonly delivered: string[] = [];
  /** The watcher after a restart is a new client: it never saw the instance keys. */
  phase: 'flow' | 'watcher' = 'flow';

  private echo(): string {
    if (!this.s.echoKeys) return '';
    return ` (key ${API_KEY}${this.phase === 'flow' && this.delivered.length ? `, instance key ${this.delivered.at(-1)!}` : ''})`;
  }

  private create(offerId: number, body: { label?: string }): TransportResponse {
    const a = this.s.creates[this.ci++] ?? { kind: 'ok' };
    if (!OFFERS.some((o) => o.id === offerId)) return json(404, { success: false, error: 'no_such_ask', msg: 'unknown offer' });
    if (a.kind === 'refusal') {
      const r = REFUSALS[a.row]!;
      return json(
        r.status,
        r.code
          ? { success: false, error: r.code, msg: `refused${this.echo()}` }
          : r.status === 429
            ? { detail: 'API requests too frequent' }
            : { success: false, msg: `refused${this.echo()}` },
      );
    }
    let id: number | undefined;
    if (a.kind === 'ok' || a.acted) {
      id = 5000 + this.machines.length * 7 + offerId;
      this.machines.push({ id, label: body.label ?? '', reads: 0, terminalShown: false });
    }
    if (a.kind === 'ok') {
      this.delivered.push(iak(id!));
      return json(200, { success: true, new_contract: id, instance_api_key: iak(id!) });
    }
    switch (a.answer) {
      case 'timeout':
      case 'reset':
        throw new Timeout(a.answer === 'timeout' ? 'timeout' : 'network', true);
      case 'malformed':
        return { status: 200, headers: { 'content-type': 'application/json' }, text: '{"success": tr' };
      case '5xx':
        return json(500, { success: false, error: 'server_error', msg: `boom${this.echo()}` });
      case '5xx-bare':
        return { status: 502, headers: { 'content-type': 'text/html' }, text: '<html>Bad gateway</html>' };
      case 'unlisted-4xx':
        return json(400, { success: false, error: 'something_new', msg: `new refusal${this.echo()}` });
      default:
        return json(200, { success: false, error: a.answer.slice(4), msg: `not done${this.echo()}` });
    }
  }

  /** One show or list request: its generated fault, else the answer (and maybe the destroy from elsewhere). */
  private read(answer: () => TransportResponse): TransportResponse {
    this.totalReads++;
    const first = this.machines[0];
    if (first && !first.destroyed && this.s.outsideDestroyAfter !== null && this.totalReads > this.s.outsideDestroyAfter) first.destroyed = 'outside';
    const f = this.s.reads[this.ri++] ?? 'ok';
    switch (f) {
      case 'ok':
        return answer();
      case '429':
        return json(429, { detail: 'API requests too frequent' });
      case '500':
        return json(500, { success: false, error: 'server_error', msg: `boom${this.echo()}` });
      case '503-bare':
        return { status: 503, headers: { 'content-type': 'text/plain' }, text: 'Service Unavailable' };
      case 'timeout':
      case 'reset':
        throw new Timeout(f === 'timeout' ? 'timeout' : 'network', true);
      case 'malformed':
        return { status: 200, headers: { 'content-type': 'application/json' }, text: '{"instances": [' };
      case '2xx-refusal':
        return json(200, { success: false, error: 'rate_limit_exceeded', msg: `slow down${this.echo()}` });
    }
  }

  /** Whether this read shows the machine (gone ones never), advancing its boot when it does. */
  private shows(m: Machine): boolean {
    if (m.destroyed) return false;
    if (!(this.s.visibility[this.vi++] ?? true)) return false;
    m.reads++;
    return true;
  }

  private row(m: Machine): Record<string, unknown> {
    const st = m.reads <= this.s.bootReads ? 'loading' : this.s.final;
    if (st === 'exited') m.terminalShown = true;
    const ssh = st === 'running' ? { ssh_host: '10.9.8.7', ssh_port: 20000 + (m.id % 1000) } : {};
    return {
      id: m.id,
      label: m.label,
      actual_status: st,
      intended_status: 'running',
      cur_state: st === 'running' ? 'running' : 'stopped',
      num_gpus: 1,
      gpu_name: 'RTX 4090',
      dph_total: 0.3,
      jupyter_token: JUPYTER,
      ...ssh,
    };
  }

  private show(id: number): TransportResponse {
    const m = id === this.other.id ? this.other : this.machines.find((x) => x.id === id);
    if (m && this.shows(m)) return json(200, { instances: this.row(m) });
    return this.s.hidden404 ? json(404, { success: false, error: 'no_such_instance', msg: 'not found' }) : json(200, { instances: null });
  }

  private list(full: string): TransportResponse {
    const q = new URLSearchParams(full.split('?')[1] ?? '');
    const f = JSON.parse(q.get('select_filters') ?? '{}') as { id?: { eq?: number }; label?: { eq?: string } };
    const asked = (m: Machine) => this.s.unfiltered || ((f.id?.eq === undefined || m.id === f.id.eq) && (f.label?.eq === undefined || m.label === f.label.eq));
    const rows = [this.other, ...this.machines].filter(asked).filter((m) => this.shows(m));
    return json(200, { instances: rows.map((m) => this.row(m)), next_token: null, total_instances: rows.length });
  }

  private destroy(id: number): TransportResponse {
    this.deletes.push(id);
    const m = this.machines.find((x) => x.id === id);
    if (!m || m.destroyed) return json(404, { success: false, error: 'no_such_instance', msg: 'not found' });
    const a = this.s.destroys[this.di++] ?? 'ok';
    if (a === 'ok' || a === 'timeout-acted') m.destroyed = 'us';
    if (a === 'ok') return json(200, { success: true });
    if (a === '5xx') return json(500, { success: false, error: 'server_error', msg: `boom${this.echo()}` });
    throw new Timeout('timeout', true);
  }
}

function json(status: number, body: unknown): TransportResponse {
  return { status, headers: { 'content-type': 'application/json' }, text: JSON.stringify(body) };
}

// ---------------------------------------------------------------- one run, and its checks

/** More waits than any settled run makes: a wait that never ends fails the run. */
const MAX_SLEEPS = 3000;

export interface FuzzRun {
  script: FuzzScript;
  service: ScriptedService;
  result: CreateFlowResult | undefined;
  flow: Harness;
  watcher: Harness | undefined;
  /** Times the user chose to rent another machine (Rent Another, Destroy and Rent Next Match). */
  rentAgain: number;
  /** Machines the user agreed to destroy. */
  destroyAgreed: number[];
  /** Failed boots the user was asked about. */
  failedBootsAsked: number[];
}

/** Runs the REAL create flow against the script, then (after a restart, or for what stays in flight) the watcher. */
export async function runScript(s: FuzzScript): Promise<FuzzRun> {
  const service = new ScriptedService(s);
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
  const run: FuzzRun = {
    script: s,
    service,
    result: undefined,
    flow: undefined as unknown as Harness,
    watcher: undefined,
    rentAgain: 0,
    destroyAgreed: [],
    failedBootsAsked: [],
  };
  let bootAnswered = 0;
  let answered = 0;
  let restarted!: () => void;
  const restart = new Promise<void>((resolve) => (restarted = resolve));
  run.flow = harness({
    client,
    clock: virtualClock({ max: MAX_SLEEPS, hangAfter: s.restartAtSleep, onHang: () => restarted() }),
    prompts: {
      notFound: async () => {
        const a = s.notFound[answered++] ?? 'stop';
        if (a === 'rent-again') run.rentAgain++;
        return a;
      },
      keepOrDestroy: async (id) => (s.keepOrDestroy === 'destroy' && run.destroyAgreed.push(id), s.keepOrDestroy),
      failedBoot: async (what) => {
        run.failedBootsAsked.push(what.instanceId);
        const a = s.failedBoot[bootAnswered++] ?? 'keep';
        if (a !== 'keep') run.destroyAgreed.push(what.instanceId);
        if (a === 'destroy-and-rent-next') run.rentAgain++;
        return a;
      },
    },
  });
  const cancel = new AbortController();
  if (s.cancelAtSleep !== null) {
    const clock = run.flow.ports.clock;
    const sleep = clock.sleep.bind(clock);
    let n = 0;
    run.flow.ports.clock = { now: () => clock.now(), sleep: async (ms, signal) => (++n === s.cancelAtSleep && cancel.abort(), sleep(ms, signal)) };
  }
  const input = { template, templatePath: '.gpu/t.json', confirm: s.interactive, maxWaitMs: 20 * 60_000, signal: cancel.signal };
  await Promise.race([restart, runCreateFlow(run.flow.ports, input).then((r) => void (run.result = r))]);
  if (readInflight(run.flow.state).length) {
    // VS Code's watcher: after a reload, and for a rental the flow left in flight.
    service.phase = 'watcher';
    run.watcher = harness({ client, state: run.flow.state, clock: virtualClock({ max: MAX_SLEEPS }) });
    await resumeInflight(run.watcher.ports, { maxWaitMs: 2 * 60 * 60_000 });
  }
  return run;
}

function names(r: CreateFlowResult | undefined, id: number): boolean {
  if (!r) return false;
  if (r.outcome === 'running' || r.outcome === 'stopped') return r.instance.id === id;
  if (r.outcome === 'unknown') return r.instanceId === id;
  return 'keptId' in r && r.keptId === id;
}

/** The money invariants of one run. */
export function checkRun(run: FuzzRun): void {
  const { service, result, flow, watcher } = run;
  const what = `result ${JSON.stringify(result && { ...result, ...('instance' in result ? { instance: result.instance.id } : {}) })}`;
  // At most one machine per click, unless the user chose to rent another (a failed boot is no reason on its own).
  assert.ok(service.machines.length <= 1 + run.rentAgain, `${service.machines.length} machines for one click (${run.rentAgain} chosen by the user); ${what}`);
  // Every created machine still there is ours in the list, in flight, or named by the result.
  const inflight = readInflight(flow.state);
  const stores = [flow, ...(watcher ? [watcher] : [])];
  for (const m of service.machines) {
    if (m.destroyed) continue;
    const held = stores.some((h) => h.upserts.includes(m.id) && !h.removed.includes(m.id));
    const flying = inflight.some((r) => r.instanceId === m.id || (r.instanceId === undefined && r.label === m.label));
    assert.ok(held || flying || names(result, m.id), `machine ${m.id} ("${m.label}") is untracked: not in the list as ours, not in flight, not named; ${what}`);
  }
  // Nothing destroyed that we did not create, and every destroy by us after the user's yes (a failed boot too).
  for (const id of service.deletes) {
    const m = service.machines.find((x) => x.id === id);
    assert.ok(m, `destroyed ${id}, which this click did not create`);
    assert.ok(run.destroyAgreed.includes(id), `destroyed ${id} without the user's yes${m.terminalShown ? ' (it had failed while booting)' : ''}; ${what}`);
  }
  // A script is never asked, and a failed boot it meets is kept and named by the result.
  if (!run.script.interactive) assert.deepEqual(run.failedBootsAsked, [], `a script was asked about a failed boot; ${what}`);
  // No key in any log line, progress message or result message.
  const text = [...stores.flatMap((h) => [...h.log.lines, ...h.progress.map((p) => p.message)]), result && 'message' in result ? result.message : ''].join(
    '\n',
  );
  for (const key of [API_KEY, JUPYTER, ...service.delivered]) assert.ok(!text.includes(key), `a key (${key.slice(0, 10)}…) reached the log or a message`);
}
