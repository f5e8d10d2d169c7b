// "Create from Template" with a count of 2 or more: the all-or-none owner of a group of machines.
// It finds a physical cluster where the template fits N times, makes a private (overlay) network on
// it, and rents the N members in parallel through the SAME create flow (src/create/createFlow.ts),
// one preselected offer and one attempt each, as a script (confirm: false): so each member keeps
// every money rule of a single rental (in-flight record first, one machine per member under every
// fault, the idle guard through onstart, late machines adopted) and none asks a question of its own.
//
// All or none: the group is ready only when every member runs (and, with `prepare`, knows the
// group). Otherwise the others are cancelled at once, every member that exists is destroyed (the
// user agreed to this in the one confirmation), and the network is deleted. A member the service
// gave no clear answer for is never taken as gone: it stays in flight and watched, and the result
// names it.
import type { Instance, Offer } from '../api/types';
import { runCreateFlow, type CreateFlowResult, type FlowPrompts } from '../create/createFlow';
import { baseLabel, buildOfferQuery, uniqueLabel } from '../create/requestBuilder';
import { logText, userMessageOf } from '../create/flowTypes';
import type { Template } from '../create/templateSchema';
import { formatRate } from '../core/rates';
import { groupGuard, guardSummary } from '../guard/plan';
import { clusterChoices, type ClusterChoice } from './clusterPick';
import { putGroup, removeGroup, updateGroup, updateMember, type GroupRecord } from './groupRecords';
import type { GroupFlowInput, GroupFlowPorts, GroupResult } from './groupTypes';
import { createNetwork, deleteNetwork } from './overlayNetwork';
import { destroyMember, dropGone } from './groupActions';
import * as l10n from '@vscode/l10n';

export const DEFAULT_MASTER_PORT = 29500;
/** A group waits this long for all of its members by default (each member's own limit). */
export const GROUP_WAIT_MS = 20 * 60_000;

/** The members never ask: the group asked once; a member cancelled or timed out is kept for the group to unwind. */
const MEMBER_PROMPTS: FlowPrompts = {
  pickOffer: async () => undefined,
  confirmRent: async () => true,
  keepOrDestroy: async () => 'keep',
};

export function groupCount(t: Template): number {
  return Math.max(1, Math.floor(t.count ?? 1));
}

/** @internal test */
export async function runGroupFlow(ports: GroupFlowPorts, input: GroupFlowInput): Promise<GroupResult> {
  const t = input.template;
  const count = groupCount(t);
  const maxWaitMs = input.maxWaitMs ?? GROUP_WAIT_MS;
  const found = await findClusters(ports, t, count, input.signal);
  if (!Array.isArray(found)) return found;
  const choice = input.confirm === false ? found[0] : await ports.prompts.pickCluster(found, t);
  if (!choice || input.signal?.aborted) return cancelled();
  if (
    input.confirm !== false &&
    !(await ports.prompts.confirmGroup(choice, t, maxWaitMs, input.guard ? guardSummary(memberGuard(input, choice), choice.totalDph) : noGroupGuard()))
  )
    return cancelled();
  if (input.signal?.aborted) return cancelled();

  const name = groupName(uniqueLabel(baseLabel(t).slice(0, 40), ports.random));
  const group: GroupRecord = {
    name,
    overlayName: name,
    clusterId: choice.clusterId,
    templatePath: input.templatePath,
    count,
    gpusPerNode: Math.min(...choice.offers.map((o) => o.num_gpus)),
    members: choice.offers.map((o, rank) => ({ rank, label: `${name}-${rank}`, dphTotal: o.dph_total })),
    createdAt: Date.now(),
    status: 'renting',
    masterPort: DEFAULT_MASTER_PORT,
  };
  // Recorded before anything is made: a group is never untracked.
  await putGroup(ports.state, group);
  const net = await createNetwork(ports, choice.clusterId, name, input.signal);
  if ('problem' in net) {
    await removeGroup(ports.state, name);
    return nothing(l10n.t('{0} Nothing was rented.', net.problem));
  }
  if (net.overlayId !== undefined) await updateGroup(ports.state, name, (g) => ({ ...g, overlayId: net.overlayId }));
  ports.log.info(`group ${name}: renting ${count} machines on cluster ${choice.clusterId} (${formatRate(choice.totalDph, 2)} in total)`);

  const results = await rentMembers(ports, input, group, choice, maxWaitMs);
  const instances = results.flatMap((r) => (r.outcome === 'running' ? [r.instance] : []));
  if (instances.length === count) {
    const ready = await prepared(
      ports,
      { ...group, overlayId: net.overlayId, members: group.members.map((m, i) => ({ ...m, instanceId: instances[i]!.id })) },
      instances,
    );
    if ('group' in ready) {
      await putGroup(ports.state, ready.group);
      return {
        outcome: 'ready',
        group: ready.group,
        instances,
        message: l10n.t(
          'Group "{0}" is ready: {1} machines on one private network, {2} in total. Rank 0 is gpu-{3}-0.',
          name,
          count,
          formatRate(choice.totalDph, 2),
          name,
        ),
      };
    }
    return unwind(ports, group, net.overlayId, results, ready.problem);
  }
  return unwind(ports, group, net.overlayId, results, firstProblem(results));
}

/** The group's name as SSH host names and the network take it: lowercase letters and digits joined by single '-'. */
function groupName(label: string): string {
  return (
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'group'
  );
}

/** The SSH host names of a member: gpu-<group>-<rank>, and rank 0 is also gpu-<group>. */
export function memberAliases(group: string, rank: number): string[] {
  return rank === 0 ? [`gpu-${group}-0`, `gpu-${group}`] : [`gpu-${group}-${rank}`];
}

function nothing(message: string): GroupResult {
  return { outcome: 'nothing', message };
}

/** Stopped before any request went out: nothing rented, and nothing to report as a failure. */
function cancelled(): GroupResult {
  return { outcome: 'nothing', message: l10n.t('Cancelled. Nothing was rented.'), cancelled: true };
}

async function findClusters(ports: GroupFlowPorts, t: Template, count: number, signal: AbortSignal | undefined): Promise<ClusterChoice[] | GroupResult> {
  let offers: Offer[];
  try {
    offers = await ports.api.searchOffers({ ...buildOfferQuery(t), clusterId: 'any', limit: t.offer?.limit ?? 256 }, signal ? { signal } : undefined);
  } catch (e) {
    if (signal?.aborted) return cancelled();
    ports.log.warn(`group: offer search failed: ${logText(e)}`);
    return nothing(l10n.t('Searching offers failed. {0}', userMessageOf(e)));
  }
  const choices = clusterChoices(offers, count);
  ports.log.info(`group: template "${t.name}": ${offers.length} offer(s) in clusters, ${choices.length} cluster(s) fit ${count} machines`);
  if (!choices.length)
    return nothing(
      l10n.t('No physical cluster has {0} machines matching template "{1}". Lower "count", or loosen the template\'s offer requirements.', count, t.name),
    );
  return choices;
}

/** The members, in parallel; the first that will not run cancels the others (the group is failing anyway). */
async function rentMembers(
  ports: GroupFlowPorts,
  input: GroupFlowInput,
  group: GroupRecord,
  choice: ClusterChoice,
  maxWaitMs: number,
): Promise<CreateFlowResult[]> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  input.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.all(
      choice.offers.map(async (offer, rank) => {
        const member = group.members[rank]!;
        const t = input.template;
        const template: Template = {
          ...t,
          count: 1,
          instance: { ...t.instance, label: member.label, env: { ...(t.instance.env ?? {}), [`-n ${group.overlayName}`]: '1' } },
        };
        // Marked before its flow starts (the create's in-flight record comes later and goes once it settles).
        await updateMember(ports.state, group.name, rank, (m) => ({ ...m, sent: true }));
        const r = await runCreateFlow(
          { ...ports, prompts: MEMBER_PROMPTS, progress: (u) => ports.progress({ ...u, message: `rank ${rank}: ${u.message}` }) },
          {
            ...input,
            template,
            offer,
            confirm: false,
            maxAttempts: 1,
            exactLabel: true,
            maxWaitMs,
            signal: stop.signal,
            sshAliases: memberAliases(group.name, rank),
            ...(input.guard ? { guard: memberGuard(input, choice) } : {}),
          },
        );
        const id = memberId(r);
        if (id !== undefined) await updateMember(ports.state, group.name, rank, (m) => ({ ...m, instanceId: id }));
        if (r.outcome !== 'running') stop.abort();
        return r;
      }),
    );
  } finally {
    input.signal?.removeEventListener('abort', onAbort);
  }
}

const noGroupGuard = () => l10n.t('Idle guard: none (nothing stops these machines when they are idle; stop or destroy the group yourself).');

/** Each member's idle guard: it stops when the whole group is idle, and its maxSpend counts the group's total $/h. */
function memberGuard(input: GroupFlowInput, choice: ClusterChoice) {
  return input.guard && groupGuard(input.guard, choice.totalDph);
}

/** The machine a member's result says exists (or may: an unknown one with an id). */
function memberId(r: CreateFlowResult): number | undefined {
  if (r.outcome === 'running' || r.outcome === 'stopped') return r.instance.id;
  if (r.outcome === 'unknown') return r.instanceId;
  return r.keptId;
}

/** Why the group is not ready, in one line: the first member that did not run (its own message tells of what the group then destroys). */
function firstProblem(results: readonly CreateFlowResult[]): string {
  const rank = results.findIndex((r) => r.outcome !== 'running' && r.outcome !== 'cancelled');
  const at = rank >= 0 ? rank : results.findIndex((r) => r.outcome !== 'running');
  const r = results[at];
  if (!r) return l10n.t('not every machine started');
  switch (r.outcome) {
    case 'failed':
      return r.bootFailed
        ? l10n.t('rank {0}: instance {1} became "{2}" while starting', at, r.bootFailed.instanceId, r.bootFailed.status)
        : `rank ${at}: ${r.message.split('. ')[0]}`;
    case 'unknown':
      return l10n.t('rank {0}: the service gave no clear answer to its rental', at);
    case 'kept':
      return l10n.t('rank {0}: its status could not be read', at);
    case 'stopped':
      return l10n.t('rank {0}: it stopped instead of running', at);
    default:
      return l10n.t('rank {0}: cancelled, or not running within the time limit', at);
  }
}

async function prepared(ports: GroupFlowPorts, group: GroupRecord, instances: Instance[]): Promise<{ group: GroupRecord } | { problem: string }> {
  if (!ports.prepare) return { group: { ...group, status: 'ready' } };
  try {
    return { group: { ...(await ports.prepare(group, instances)), status: 'ready' } };
  } catch (e) {
    ports.log.warn(`group ${group.name}: preparing the members failed: ${logText(e)}`);
    return { problem: l10n.t('Every machine runs, but the group could not be made ready ({0}).', e instanceof Error ? e.message : 'unknown error') };
  }
}

/** Not all N: destroy every member that exists, delete the network, and say what is left. */
async function unwind(
  ports: GroupFlowPorts,
  group: GroupRecord,
  overlayId: number | undefined,
  results: readonly CreateFlowResult[],
  problem: string,
): Promise<GroupResult> {
  await updateGroup(ports.state, group.name, (g) => ({ ...g, status: 'unwinding' }));
  const destroyed: number[] = [];
  const kept: number[] = [];
  const unknown: string[] = [];
  await Promise.all(
    results.map(async (r, rank) => {
      const label = group.members[rank]!.label;
      if (r.outcome === 'unknown') {
        // Not proof either way: it stays in flight and watched (the create flow marked it late).
        if (r.instanceId !== undefined && (await destroyMember(ports, r.instanceId))) destroyed.push(r.instanceId);
        else unknown.push(r.instanceId !== undefined ? `instance ${r.instanceId} ("${r.label}")` : `"${r.label}"`);
        return;
      }
      const id = memberId(r);
      if (id === undefined) return;
      if (await destroyMember(ports, id)) destroyed.push(id);
      else kept.push(id);
      ports.log.info(`group ${group.name}: rank ${rank} ("${label}") ${kept.includes(id) ? 'could not be destroyed' : 'destroyed'}`);
    }),
  );
  await deleteNetwork(ports, { overlayId, name: group.overlayName });
  // A member with no answer stays under the group, which stays unwinding: if it appears, it is destroyed too (src/groups/groupLate.ts).
  await dropGone(ports.state, group.name, destroyed);
  const left = [
    kept.length ? l10n.t('Could not destroy {0}: still billing; destroy it from the Instances view.', kept.map((id) => `instance ${id}`).join(', ')) : '',
    unknown.length ? l10n.t('No clear answer for {0}: it is watched and shown in the Instances view if it appears; destroy it there.', unknown.join(', ')) : '',
  ].filter(Boolean);
  const what = destroyed.length
    ? l10n.t('{0} machine(s) of it were destroyed ({1}).', destroyed.length, destroyed.map((id) => `instance ${id}`).join(', '))
    : left.length
      ? ''
      : l10n.t('Nothing was left rented.');
  return {
    outcome: 'failed',
    message: [l10n.t('Group "{0}": not all {1} machines started ({2}).', group.name, group.count, problem), what, ...left].filter(Boolean).join(' '),
    destroyed,
    kept,
    unknown,
  };
}
