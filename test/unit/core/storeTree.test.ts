// A store-backed view's native UI (V5 of the UX audit): a load is the view's progress bar
// (withProgress on the view, ended when the load is over), an empty list is a context key for
// the view's welcome content; no text rows or messages for either.
import { recorded } from '../../kit/vscodeFake';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { StoreTree, type ViewText } from '../../../src/core/vscode/storeTree';
import { Emitter } from '../../../src/core/events';

class Tree extends StoreTree<string> {
  state: ViewText = { message: undefined, description: undefined };
  describe(): ViewText {
    return this.state;
  }
  getTreeItem(): vscode.TreeItem {
    return {};
  }
  getChildren(): string[] {
    return [];
  }
}

test('a load shows the view progress bar until it is over; an empty list sets its welcome context key once per change', async () => {
  const progress: Array<{ viewId: string; over: Thenable<unknown> }> = [];
  (vscode.window as unknown as Record<string, unknown>).withProgress = (o: { location: { viewId: string } }, task: () => Thenable<unknown>) => {
    const over = task();
    progress.push({ viewId: o.location.viewId, over });
    return over;
  };
  recorded.executed.length = 0;
  const changed = new Emitter<void>();
  const tree = new Tree([changed.event], { viewId: 'gpuRental.instances', log: { warn: () => undefined } });
  const view = { message: undefined, description: undefined } as unknown as vscode.TreeView<string>;
  tree.state = { message: undefined, description: undefined, busy: true, context: { 'gpuRental.noInstances': false } };
  tree.view = view;
  changed.fire();
  assert.equal(progress.length, 1, 'one progress bar for one load, however often the view renders');
  assert.equal(progress[0]!.viewId, 'gpuRental.instances');
  assert.equal(tree.busy, true);
  let ended = false;
  Promise.resolve(progress[0]!.over).then(
    () => (ended = true),
    () => undefined,
  );
  tree.state = { message: undefined, description: undefined, busy: false, context: { 'gpuRental.noInstances': true } };
  changed.fire();
  changed.fire();
  await new Promise((r) => setImmediate(r));
  assert.equal(ended, true, 'the progress bar ends with the load');
  assert.equal(tree.busy, false);
  assert.equal(view.message, undefined, 'no text message');
  assert.deepEqual(
    recorded.executed.filter((c) => c[0] === 'setContext'),
    [
      ['setContext', 'gpuRental.noInstances', false],
      ['setContext', 'gpuRental.noInstances', true],
    ],
  );
  tree.dispose();
});
