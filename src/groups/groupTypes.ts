// The group flow's ports, input and result (groupFlow.ts).
import type { Instance } from '../api/types';
import type { CreateFlowInput, CreateFlowPorts } from '../create/flowTypes';
import type { Template } from '../create/templateSchema';
import type { ClusterChoice } from './clusterPick';
import type { GroupRecord } from './groupRecords';

export interface GroupPrompts {
  /** Pick one of the clusters that fit (cheapest total first); undefined cancels (nothing was rented). */
  pickCluster(choices: readonly ClusterChoice[], template: Template): Promise<ClusterChoice | undefined>;
  /** Rent these N machines at their total $/h, all or none within `maxWaitMs`? false cancels. `guard`: what the idle guard will do, in one line. */
  confirmGroup(choice: ClusterChoice, template: Template, maxWaitMs: number, guard?: string): Promise<boolean>;
}

export interface GroupFlowPorts extends Omit<CreateFlowPorts, 'prompts'> {
  prompts: GroupPrompts;
  /**
   * Makes the running members ready to launch (rank 0's address read on the machine, each rank's
   * environment and the hostfile written): the group is ready only when it resolves. A rejection
   * unwinds the group like a member that never started. Absent: nothing is written (tests of renting alone).
   */
  prepare?(group: GroupRecord, members: readonly Instance[]): Promise<GroupRecord>;
}

export type GroupFlowInput = Omit<CreateFlowInput, 'offer' | 'maxAttempts' | 'exactLabel'>;

export type GroupResult =
  | { outcome: 'ready'; group: GroupRecord; instances: Instance[]; message: string }
  /** Nothing was rented (cancelled, no cluster fits, the network could not be made). */
  /** Nothing was rented; `cancelled` when the user (or the caller's signal) stopped it before any request. */
  | { outcome: 'nothing'; message: string; cancelled?: true }
  /**
   * Not every member ran in time: what was rented was destroyed, except `kept` (the destroy
   * failed: still billing, in the Instances view) and `unknown` (the service gave no answer that
   * proves the rental was made or not: watched, adopted if it appears).
   */
  | { outcome: 'failed'; message: string; destroyed: number[]; kept: number[]; unknown: string[] };
