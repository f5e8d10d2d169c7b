// Shared plumbing for the 2FA tests: a simulator, a client without retries (so injected
// faults reach the flow), scripted prompts that record what the user would have seen.
import { before, after } from 'node:test';
import { startHarness, type Harness } from '../api/helpers';
import { closeApiTransport } from '../../../src/api/client';
import type { ServiceApi } from '../../../src/api/types';
import { TfaFlows } from '../../../src/account/tfaFlows';
import type { TfaFlowDeps } from '../../../src/account/tfaPorts';
import { scriptedPrompts, type TfaScript } from '../../../src/account/tfaScript';
import type { TfaErrorInfo } from '../../../src/account/tfaErrors';
import type { KeyValueStore } from '../../../src/core/ports';
import { MemoryState } from '../../kit/state';

export interface Run {
  flows: TfaFlows;
  errors: TfaErrorInfo[];
  infos: string[];
  backupCodes: string[][];
  sessionKeys: Array<string | undefined>;
}

export interface TfaHarness extends Harness {
  api: ServiceApi;
  /** Test clock (ms), moved together with the simulator's by advance(). */
  clock: { now(): number };
  state: KeyValueStore;
  run(script: TfaScript, deps?: Partial<TfaFlowDeps>): Run;
  advance(seconds: number): Promise<void>;
}

export async function startTfa(): Promise<TfaHarness> {
  const h = await startHarness();
  const api = h.client({ retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const state: KeyValueStore = new MemoryState();
  return {
    ...h,
    api,
    clock,
    state,
    async advance(seconds) {
      await h.ctl.advance(seconds);
      offset += seconds * 1000;
    },
    run(script, deps = {}) {
      const r: Run = { flows: undefined as unknown as TfaFlows, errors: [], infos: [], backupCodes: [], sessionKeys: [] };
      const prompts = scriptedPrompts({
        onInfo: (m) => r.infos.push(m),
        onErrorShown: (i) => r.errors.push(i),
        onBackupCodes: (c) => r.backupCodes.push([...c]),
        ...script,
      });
      r.flows = new TfaFlows({
        api,
        prompts,
        clock,
        state,
        log: h.log,
        setSessionKey: async (k) => void r.sessionKeys.push(k),
        formatTime: (ms) => new Date(ms).toISOString().slice(11, 16),
        ...deps,
      });
      return r;
    },
  };
}

/** One simulator for the whole test file: started before, closed after. */
export function useTfaHarness(): { readonly h: TfaHarness } {
  const box = {} as { h: TfaHarness };
  before(async () => {
    box.h = await startTfa();
  });
  after(async () => {
    await box.h.close();
    await closeApiTransport();
  });
  return box;
}
