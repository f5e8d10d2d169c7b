// gpuRental.runOnGroup: one command on every member of a group at once, each in its rank's
// environment, in one terminal whose lines carry their rank ("[1] …"). Resolves with each
// member's exit code once all have ended (scripts and tests read it).
import * as vscode from 'vscode';
import type { Services } from '../../../core/vscode/services';
import { createWriter } from '../../../ssh/vscode/sshHost';
import { runEverywhere, type MemberRun } from '../../runEverywhere';
import type { GroupRecord } from '../../groupRecords';
import { pickGroup } from '../groupPick';

export interface RunOnGroupArgs {
  group?: string;
  command?: string;
}

export interface RunOnGroupResult {
  group: string;
  runs: MemberRun[];
  /** Every line, prefixed with its rank, as the terminal showed it. */
  lines: string[];
}

/** `{ group, command }` from scripts; the Instances view's group row passes itself (`{ name }`). */
export async function runOnGroup(services: Services, arg?: unknown): Promise<RunOnGroupResult | undefined> {
  const a = (arg && typeof arg === 'object' ? arg : {}) as RunOnGroupArgs & { name?: unknown };
  const args: RunOnGroupArgs = {
    ...(typeof a.group === 'string' ? { group: a.group } : typeof a.name === 'string' ? { group: a.name } : {}),
    ...(typeof a.command === 'string' ? { command: a.command } : {}),
  };
  const g = await pickGroup(services, args.group, 'Run on which group?');
  if (!g) return undefined;
  const command =
    args.command ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Run on every machine of "{0}" ({1})', g.name, g.count),
      prompt: vscode.l10n.t(
        'A shell command; each machine runs it with its MASTER_ADDR, MASTER_PORT, NODE_RANK, NNODES, WORLD_SIZE, GPUS_PER_NODE set. E.g. torchrun --nnodes=$NNODES --node_rank=$NODE_RANK --nproc_per_node=$GPUS_PER_NODE --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT train.py',
      ),
      placeHolder: vscode.l10n.t('e.g. nvidia-smi -L, or torchrun … train.py'),
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Enter a command.'),
    }));
  if (!command?.trim()) return undefined;
  return runInTerminal(services, g, command);
}

function runInTerminal(services: Services, g: GroupRecord, command: string): Promise<RunOnGroupResult> {
  const write = new vscode.EventEmitter<string>();
  const close = new vscode.EventEmitter<number | void>();
  const stop = new AbortController();
  const lines: string[] = [];
  return new Promise((resolve) => {
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      onDidClose: close.event,
      open: () => {
        write.fire(`Running on ${g.count} machines of ${g.name}: ${command}\r\n`);
        const configPath = createWriter(services).configPath;
        runEverywhere(g, command, {
          configPath,
          signal: stop.signal,
          onLine: (rank, line, err) => {
            const text = `[${rank}] ${line}`;
            lines.push(text);
            write.fire(`${err ? '\x1b[31m' : ''}${text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '')}${err ? '\x1b[0m' : ''}\r\n`);
          },
        }).then(
          (runs) => {
            const failed = runs.filter((r) => r.code !== 0);
            write.fire(
              `\r\n${failed.length ? `Ended with errors on rank ${failed.map((r) => `${r.rank} (exit ${r.code})`).join(', ')}.` : 'Ended on every machine.'} Close this terminal when you are done.\r\n`,
            );
            services.log.info(`group ${g.name}: ran a command on ${g.count} machines (${failed.length} failed)`);
            resolve({ group: g.name, runs, lines });
          },
          (e: unknown) => {
            write.fire(`\r\nCould not run: ${e instanceof Error ? e.message : String(e)}\r\n`);
            resolve({ group: g.name, runs: [], lines });
          },
        );
      },
      close: () => stop.abort(),
    };
    const term = vscode.window.createTerminal({ name: `Group ${g.name}`, pty });
    term.show();
  });
}
