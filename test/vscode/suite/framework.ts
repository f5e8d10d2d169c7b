// The integration-test framework and helpers. See index.ts for how to write a test file.
// Runs inside the real extension host (code-server or @vscode/test-electron): its console
// does not reach the terminal, so every result goes to the file in GPU_RENTAL_TEST_RESULTS
// as one JSON line, and the runner prints them.
import * as vscode from 'vscode';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ExtensionApi } from '../../../src/extension';
import { sleep, waitFor } from '../../kit/wait';

export const EXTENSION_ID = 'gpurental.gpu-rental';

export type TestFn = () => void | Promise<void>;
export interface TestOptions {
  /** Per-test timeout; default 20 s. */
  timeoutMs?: number;
  /** Skip with a reason (reported, not counted as passed or failed). */
  skip?: string | false;
}

interface TestCase {
  name: string;
  fn: TestFn;
  timeoutMs: number;
  skip?: string | false;
}

const cases: TestCase[] = [];
const prefix: string[] = [];
const afterEachHooks: TestFn[] = [];
/** Each afterEach hook gets this long; the runner relies on it to detect a hung suite. */
export const HOOK_TIMEOUT_MS = 15_000;

/** Groups tests; names are joined with ' › '. Synchronous body only. */
export function describe(name: string, body: () => void): void {
  prefix.push(name);
  try {
    body();
  } finally {
    prefix.pop();
  }
}

/** Registers one test. Tests run sequentially in registration (import) order. */
export function it(name: string, fn: TestFn, options: TestOptions = {}): void {
  cases.push({ name: [...prefix, name].join(' › '), fn, timeoutMs: options.timeoutMs ?? 20_000, skip: options.skip });
}
export const test = it;

/** Runs after every test (pass or fail), e.g. to sign out or reset the simulator. */
export function afterEach(fn: TestFn): void {
  afterEachHooks.push(fn);
}

// ---------------------------------------------------------------- results file

export interface ResultRecord {
  type: 'start' | 'begin' | 'test' | 'metric' | 'log' | 'checkpoint' | 'end';
  [k: string]: unknown;
}

function resultsPath(): string | undefined {
  return process.env.GPU_RENTAL_TEST_RESULTS || undefined;
}

/** Appends one JSON line to the results file (or the console when there is none). */
export function report(rec: ResultRecord): void {
  const line = JSON.stringify(rec);
  const file = resultsPath();
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, line + '\n');
  } else {
    console.log(line);
  }
}

/** A named number the runner prints and bench/perf tooling reads (e.g. activationMs). */
export function metric(name: string, value: number, unit = 'ms'): void {
  report({ type: 'metric', name, value, unit });
}

/** A diagnostic line shown by the runner under the current test. Never pass secrets. */
export function log(message: string): void {
  report({ type: 'log', message });
}

// ---------------------------------------------------------------- helpers

let activation: Promise<ExtensionApi> | undefined;

/** Activates gpurental.gpu-rental (once) and returns its exports `{ services }`. Records activationMs. */
export function getExtensionApi(): Promise<ExtensionApi> {
  activation ??= (async () => {
    const ext = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    if (!ext) throw new Error(`extension ${EXTENSION_ID} is not installed in this VS Code`);
    if (ext.isActive) {
      // onStartupFinished won the race against the suite: nothing left to measure.
      log('the extension was already active when the suite started: activationMs not measured');
      return ext.exports;
    }
    const t0 = performance.now();
    const api = await ext.activate();
    metric('activationMs', Math.round((performance.now() - t0) * 10) / 10);
    const r1 = (x: number) => Math.round(x * 10) / 10;
    if (typeof api.activateMs === 'number') metric('activateFnMs', r1(api.activateMs));
    // Where the rest goes (same clock, same process): when VS Code began evaluating the bundle
    // relative to this call (negative: onStartupFinished had already started it), how long the
    // evaluation took, and how long VS Code took from there to calling activate().
    const at = api.activationTimestamps;
    if (at?.loadStart !== undefined && at.loadEnd !== undefined) {
      metric('loadStartVsCallMs', r1(at.loadStart - t0));
      metric('bundleEvalMs', r1(at.loadEnd - at.loadStart));
      metric('hostWaitBeforeActivateMs', r1(at.activateStart - at.loadEnd));
    }
    return api;
  })();
  return activation;
}

/** The simulator's base URL (GPU_RENTAL_TEST_SIM_URL, started with test control by the runner). */
export function simUrl(): string {
  const u = process.env.GPU_RENTAL_TEST_SIM_URL;
  if (!u) throw new Error('GPU_RENTAL_TEST_SIM_URL is not set: run the suite through test/vscode/runner.mjs or electron.mjs');
  return u;
}

// Waiting is the test kit's (test/kit/wait.ts), shared with the unit tier.
export { sleep, waitFor };

// Cleanups and sign-ins run after and in nearly every test: a write that changes nothing (each one a
// round trip through the settings file or the state store) is skipped, what is left is the same.

/** Sets a user setting (ConfigurationTarget.Global) unless it already holds exactly `value` (undefined: removes it). */
export async function setUserSetting(section: string, key: string, value: string | number | boolean | undefined): Promise<void> {
  const config = vscode.workspace.getConfiguration(section);
  if (config.inspect(key)?.globalValue === value) return;
  await config.update(key, value, vscode.ConfigurationTarget.Global);
}

/** Removes `key` from a state store (globalState) unless it holds nothing there. */
export async function forget(store: { get(key: string): unknown; update(key: string, value: undefined): Thenable<void> }, key: string): Promise<void> {
  if (store.get(key) !== undefined) await store.update(key, undefined);
}

// ---------------------------------------------------------------- prompt stubs

export type PromptKind =
  | 'showInformationMessage'
  | 'showWarningMessage'
  | 'showErrorMessage'
  | 'showQuickPick'
  | 'showInputBox'
  /** Status bar confirmations: recorded (always leniently), never answered. */
  | 'setStatusBarMessage';

/**
 * A scripted answer. A function receives what the prompt was called with (message or
 * items, resolved) and returns the answer; anything else is returned as is. For
 * showQuickPick a string answer picks the first item whose label (or the string item)
 * contains it. `undefined` means the user pressed Escape.
 */
export type Answer = unknown | ((...args: any[]) => unknown);

export interface PromptCall {
  kind: PromptKind;
  /** The message (messages) or the item labels (quick pick) or the prompt/title (input box). */
  text: string;
  items?: string[];
}

const queues = new Map<PromptKind, Answer[]>();
const originals = new Map<PromptKind, unknown>();
/** Every stubbed prompt shown during the current test, in order. */
export const promptCalls: PromptCall[] = [];

function labelOf(item: unknown): string {
  return typeof item === 'string' ? item : String((item as { label?: unknown } | undefined)?.label ?? '');
}

/**
 * Queues answers for the next prompts of one kind, e.g.
 * `answer('showWarningMessage', 'Destroy')`, `answer('showInputBox', '123456')`,
 * `answer('showQuickPick', (items) => items[0])`. While stubs are installed a prompt with
 * no queued answer fails the test with the prompt's text (so no flow hangs on a dialog).
 * Stubs are removed after each test.
 */
export function answer(kind: PromptKind, ...answers: Answer[]): void {
  install(kind);
  queues.get(kind)!.push(...answers);
}

/**
 * Records prompts of these kinds without scripted answers: they resolve `undefined`
 * (like Escape) and land in promptCalls, e.g. to assert an error message was shown.
 */
export function capture(...kinds: PromptKind[]): void {
  for (const k of kinds) install(k, true);
}

const lenient = new Set<PromptKind>();
let unexpected: Error | undefined;

function install(kind: PromptKind, isLenient = false): void {
  if (isLenient) lenient.add(kind);
  if (originals.has(kind)) return;
  const win = vscode.window as unknown as Record<string, unknown>;
  originals.set(kind, win[kind]);
  queues.set(kind, []);
  if (kind === 'setStatusBarMessage') {
    lenient.add(kind);
    win[kind] = (text: unknown) => (promptCalls.push({ kind, text: String(text) }), { dispose: () => undefined });
    return;
  }
  win[kind] = async (...args: unknown[]) => {
    let text = '';
    let items: unknown[] | undefined;
    if (kind === 'showQuickPick') {
      items = (await Promise.resolve(args[0] as unknown[] | Thenable<unknown[]>)) ?? [];
      const opts = args[1] as vscode.QuickPickOptions | undefined;
      text = opts?.title ?? opts?.placeHolder ?? '';
    } else if (kind === 'showInputBox') {
      const opts = args[0] as vscode.InputBoxOptions | undefined;
      text = opts?.prompt ?? opts?.title ?? opts?.placeHolder ?? '';
    } else {
      text = String(args[0]);
    }
    promptCalls.push({ kind, text, ...(items ? { items: items.map(labelOf) } : {}) });
    const q = queues.get(kind)!;
    if (!q.length) {
      if (lenient.has(kind)) return undefined;
      unexpected ??= new Error(`unexpected ${kind}: "${text}"${items ? ` [${items.map(labelOf).join(', ')}]` : ''}`);
      return undefined;
    }
    const a = q.shift();
    if (typeof a === 'function') return (a as (...x: unknown[]) => unknown)(...(items ? [items, ...args.slice(1)] : args));
    if (kind === 'showQuickPick' && typeof a === 'string' && items) {
      const canPick = (opts: vscode.QuickPickOptions | undefined) => opts?.canPickMany;
      const hit = items.find((i) => labelOf(i) === a) ?? items.find((i) => labelOf(i).includes(a));
      if (hit === undefined) {
        unexpected ??= new Error(`showQuickPick: no item matches "${a}" in [${items.map(labelOf).join(', ')}]`);
        return undefined;
      }
      return canPick(args[1] as vscode.QuickPickOptions | undefined) ? [hit] : hit;
    }
    if (kind === 'showInputBox' && typeof a === 'string') {
      const opts = args[0] as vscode.InputBoxOptions | undefined;
      const invalid = await opts?.validateInput?.(a);
      if (invalid) {
        unexpected ??= new Error(`showInputBox rejected scripted answer: ${typeof invalid === 'string' ? invalid : invalid.message}`);
        return undefined;
      }
    }
    return a;
  };
}

/** Restores the real prompts; returns the first problem seen (unexpected prompt or unused answers). */
export function restorePrompts(): Error | undefined {
  const win = vscode.window as unknown as Record<string, unknown>;
  let problem = unexpected;
  for (const [kind, orig] of originals) {
    win[kind] = orig;
    const left = queues.get(kind)?.length ?? 0;
    if (left && !problem) problem = new Error(`${left} scripted ${kind} answer(s) were never used`);
  }
  originals.clear();
  queues.clear();
  lenient.clear();
  promptCalls.length = 0;
  unexpected = undefined;
  return problem;
}

// ---------------------------------------------------------------- UI checkpoints

/**
 * Lets the runner drive the real workbench (Playwright) at a known point of the suite:
 * records a checkpoint and waits until the runner writes `<results>.<name>.done` (its
 * content is the runner's verdict: 'ok' or an error text). Returns immediately with
 * 'skipped' when no UI driver is attached (GPU_RENTAL_TEST_UI unset, e.g. electron).
 */
export async function uiCheckpoint(name: string, timeoutMs = 60_000): Promise<string> {
  const file = resultsPath();
  if (!file || !process.env.GPU_RENTAL_TEST_UI) return 'skipped';
  report({ type: 'checkpoint', name });
  const done = `${file}.${name}.done`;
  await waitFor(() => existsSync(done), timeoutMs, `the runner's UI step "${name}"`);
  const { readFileSync } = await import('node:fs');
  return readFileSync(done, 'utf8').trim() || 'ok';
}

// ---------------------------------------------------------------- run

function errorText(e: unknown): string {
  if (e instanceof Error) return (e.stack ?? e.message).split('\n').slice(0, 6).join('\n');
  return String(e);
}

/** Runs every registered test; resolves when done, rejects when any failed (test-electron contract). */
export async function runRegistered(): Promise<void> {
  // Activate before anything else so activationMs is measured around activate() itself
  // (a test that awaits getExtensionApi() gets this same promise and its error).
  getExtensionApi().catch(() => undefined);
  report({
    type: 'start',
    vscodeVersion: vscode.version,
    appName: vscode.env.appName,
    uiKind: vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop',
    remoteName: vscode.env.remoteName ?? null,
    tests: cases.length,
  });
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const only = process.env.GPU_RENTAL_TEST_GREP;
  for (const c of cases) {
    if (only && !c.name.includes(only)) continue;
    if (c.skip) {
      skipped++;
      report({ type: 'test', name: c.name, status: 'skipped', reason: c.skip });
      continue;
    }
    report({ type: 'begin', name: c.name, timeoutMs: c.timeoutMs });
    const t0 = performance.now();
    let error: unknown;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(c.fn),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${c.timeoutMs} ms`)), c.timeoutMs);
        }),
      ]);
    } catch (e) {
      error = e;
    } finally {
      clearTimeout(timer);
    }
    const stubProblem = restorePrompts();
    error ??= stubProblem;
    const hooksAt = performance.now();
    for (const h of afterEachHooks) {
      let hookTimer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(h),
          new Promise((_, reject) => {
            hookTimer = setTimeout(() => reject(new Error(`timed out after ${HOOK_TIMEOUT_MS} ms`)), HOOK_TIMEOUT_MS);
          }),
        ]);
      } catch (e) {
        error ??= new Error(`afterEach hook failed: ${errorText(e)} (hook: ${String(h).replace(/\s+/g, ' ').slice(0, 160)})`);
      } finally {
        clearTimeout(hookTimer);
      }
    }
    const durationMs = Math.round(performance.now() - t0);
    if (error === undefined) passed++;
    else failed++;
    report({
      type: 'test',
      name: c.name,
      status: error === undefined ? 'passed' : 'failed',
      durationMs,
      // Of durationMs, the afterEach hooks (every file's, after every test): where the tier's time goes.
      hooksMs: Math.round(performance.now() - hooksAt),
      ...(error !== undefined ? { error: errorText(error) } : {}),
    });
  }
  report({ type: 'end', passed, failed, skipped, summary: `${passed} passed, ${failed} failed` });
  if (failed) throw new Error(`${failed} integration test(s) failed`);
}
