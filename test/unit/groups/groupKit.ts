// What the group tests against the simulator share: a template of 3 one-GPU members, prompts
// that take the cheapest cluster and say yes, and the simulator's overlay networks.
import type { Template } from '../../../src/create/templateSchema';
import { flowSim } from '../create/flowHarness';

export const template: Template = {
  name: 'ddp',
  count: 3,
  offer: { gpuNames: ['RTX 4090'], numGpus: 1 },
  instance: { image: 'pytorch/pytorch:latest', runtype: 'ssh_direct', disk: 10 },
};

export const prompts = { pickCluster: async <T>(c: readonly T[]) => c[0], confirmGroup: async () => true };

export const overlays = async () =>
  (await (await fetch(`${flowSim.sim.url}/api/v0/overlay/`, { headers: { authorization: 'Bearer sim-api-key' } })).json()) as Array<{
    name: string;
    instances: number[];
  }>;
