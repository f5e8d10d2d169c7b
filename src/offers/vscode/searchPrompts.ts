// The two editors Search Offers opens from its filter list: a quick pick (one or many choices,
// typed answers checked) and an input box. Both come back with undefined on Escape or Back: the
// filter stays as it was and the list shows again.
import * as vscode from 'vscode';
import { typedChoice, type Typed } from '../../core/steps';

export type Item<T> = vscode.QuickPickItem & { value: T };

/**
 * A quick pick over `items`. Text typed and confirmed with Enter is never dropped: a
 * single-choice pick takes it when `typed` (default: a choice's exact label) accepts it and
 * otherwise stays open with the reason at the top of the list; a many-choice pick with `typed`
 * adds a typed value no listed label contains.
 */
export function pickValues<T>(
  title: string,
  items: Array<Item<T>>,
  opts: { many?: boolean; placeholder: string; typed?: (text: string) => Typed<T> },
): Promise<T[] | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<Item<T>>();
    qp.title = title;
    qp.items = items;
    qp.canSelectMany = opts.many === true;
    qp.placeholder = opts.placeholder;
    qp.ignoreFocusOut = true;
    if (opts.many) qp.selectedItems = items.filter((i) => i.picked);
    else qp.activeItems = items.filter((i) => i.picked).slice(0, 1);
    qp.buttons = [vscode.QuickInputButtons.Back];
    const parse = opts.typed ?? (opts.many ? undefined : (text: string) => typedChoice<T, Item<T>>(text, items));
    let extra: Item<T> | undefined;
    const listed = (text: string) => items.some((i) => i.label.toLowerCase().includes(text.toLowerCase()));
    const showTyped = (text: string, force = false): void => {
      const t = text.trim();
      const r = parse && t && (force || !listed(t)) ? parse(t) : undefined;
      extra = r
        ? r.ok
          ? { label: t, description: opts.many ? `add "${r.label}"` : `→ ${r.label}`, value: r.value, alwaysShow: true }
          : { label: vscode.l10n.t('$(error) {0}', t), description: r.problem, value: undefined as T, alwaysShow: true }
        : undefined;
      const selected = opts.many ? qp.selectedItems : [];
      qp.items = extra ? [extra, ...items] : items;
      if (opts.many) qp.selectedItems = selected.filter((i) => i !== extra);
      if (extra && !opts.many) qp.activeItems = [extra];
    };
    let done = false;
    const finish = (v: T[] | undefined): void => {
      if (done) return;
      done = true;
      resolve(v);
      qp.dispose();
    };
    qp.onDidChangeValue((v) => showTyped(v));
    qp.onDidTriggerButton(() => finish(undefined));
    qp.onDidAccept(() => {
      const text = qp.value.trim();
      if (opts.many) {
        const chosen = qp.selectedItems.filter((i) => i !== extra).map((i) => i.value);
        if (!text || listed(text) || !parse) return finish(chosen);
        const r = parse(text);
        if (r.ok) return finish([...chosen, r.value]);
        return showTyped(text, true); // says why, stays open
      }
      const active = qp.activeItems[0];
      if (active && active !== extra) return finish([active.value]);
      if (!text) return active ? finish([active.value]) : finish([]);
      const r = parse!(text);
      if (r.ok) return finish([r.value]);
      showTyped(text, true); // refused: the reason stays on top, nothing is dropped
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}

/** An input box with the current value filled in; the answer trimmed, or undefined on Escape or Back. */
export function inputValue(
  title: string,
  o: { prompt: string; placeholder: string; value: string; validate: (v: string) => string | undefined },
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const ib = vscode.window.createInputBox();
    ib.title = title;
    ib.prompt = o.prompt;
    ib.placeholder = o.placeholder;
    ib.value = o.value;
    ib.ignoreFocusOut = true;
    ib.buttons = [vscode.QuickInputButtons.Back];
    let done = false;
    const finish = (v: string | undefined): void => {
      if (done) return;
      done = true;
      resolve(v);
      ib.dispose();
    };
    ib.onDidChangeValue((v) => (ib.validationMessage = o.validate(v)));
    ib.onDidTriggerButton(() => finish(undefined));
    ib.onDidAccept(() => {
      const msg = o.validate(ib.value);
      ib.validationMessage = msg;
      if (!msg) finish(ib.value.trim());
    });
    ib.onDidHide(() => finish(undefined));
    ib.show();
  });
}
