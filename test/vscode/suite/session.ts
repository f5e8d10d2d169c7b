// Shared by the suites that drive the sidebar: the extension's published views and a sign-in
// with the simulator's key.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { afterEach, getExtensionApi, setUserSetting, simUrl } from './framework';
import { simControl } from './sim';

type Services = Awaited<ReturnType<typeof getExtensionApi>>['services'];

/** A tree of the sidebar as the tests drive it (a vscode.TreeDataProvider). */
export interface TreeLike<T> {
  getChildren(node?: T): T[] | Thenable<T[]> | undefined;
  getTreeItem(node: T): vscode.TreeItem | Thenable<vscode.TreeItem>;
}

/** A node of the Instances tree, as far as the tests look at it. */
export interface InstanceNode {
  kind: string;
  id?: number;
}

/** The Instances tree's row for instance `id`, or undefined when the tree shows none. */
export async function rowOf(u: { instances: TreeLike<InstanceNode> }, id: number): Promise<vscode.TreeItem | undefined> {
  const nodes = (await u.instances.getChildren()) ?? [];
  const node = nodes.find((n) => n.kind === 'instance' && n.id === id);
  return node ? u.instances.getTreeItem(node) : undefined;
}

/** The services and the view handles registerViews made (the extension API's `ui`), typed as the caller needs. */
export async function ui<U>(): Promise<{ services: Services; ui: U }> {
  const { services, ui: views } = await getExtensionApi();
  const u = views as unknown as U | undefined;
  assert.ok(u, 'activate() returned no ui');
  return { services, ui: u };
}

/** Points the extension at the test simulator and signs in with its key. */
export async function signIn(): Promise<void> {
  await setUserSetting('gpuRental', 'apiBaseUrl', simUrl());
  const ok = await vscode.commands.executeCommand<boolean>('gpuRental.setApiKey', 'sim-api-key');
  assert.equal(ok, true, 'the simulator key was not accepted');
}

/** Seeds the simulator with `instances` instances, signs in (signIn) and loads them into the Instances store. */
export async function signInToSeeded(instances: number): Promise<void> {
  await simControl().seed({ instances });
  await signIn();
  const { services } = await getExtensionApi();
  await services.instances.refresh();
}

/**
 * A suite's cleanup after each test: `first` (commands such as closing editors, or a function),
 * then sign out and reset the simulator, so the next test and the next file start signed out.
 */
export function signOutAfterEach(...first: Array<string | (() => Thenable<unknown>)>): void {
  afterEach(async () => {
    for (const step of first) await (typeof step === 'string' ? vscode.commands.executeCommand(step) : step());
    // Holding no key (an earlier file's cleanup signed out), Clear API Key would change nothing.
    const { services } = await getExtensionApi();
    if (services.connectionState.knownSecrets().length) await vscode.commands.executeCommand('gpuRental.clearApiKey');
    await simControl().reset();
  });
}

/** Writes `.gpu/<name>` in the test workspace (a template file as a user would save it); its URI. */
export async function writeWorkspaceTemplate(name: string, text: string): Promise<vscode.Uri> {
  const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.gpu', name);
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  return uri;
}
