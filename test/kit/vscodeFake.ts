// A recording stand-in for the `vscode` module, enough to run activate() in a plain Node process:
// it keeps which commands were registered, which views, status bar items and watchers were made,
// which settings and secrets were read and which commands were run, in call order. Importing this
// file installs it (before src/ is loaded, as bench/vscodeStub.cjs does for loading only).
import Module from 'node:module';

type Listener = (e: any) => unknown;

const disposable = () => ({ dispose() {} });
const event = () => (_listener: Listener) => disposable();

class EventEmitter {
  private readonly listeners: Listener[] = [];
  readonly event = (l: Listener) => {
    this.listeners.push(l);
    return disposable();
  };
  fire(e?: unknown) {
    for (const l of this.listeners) l(e);
  }
  dispose() {}
}

/** What activation did, in order. */
export const recorded = {
  /** Every API call worth asserting on, as `namespace.function` or `namespace.function:argument`. */
  calls: [] as string[],
  /** Settings read (get or inspect), as `section.key`. */
  settings: [] as string[],
  /** Secret storage keys read. */
  secrets: [] as string[],
  /** executeCommand calls: the id and its arguments. */
  executed: [] as unknown[][],
};

/** Values for workspace.getConfiguration(section).inspect(key).globalValue, by `section.key`. */
export const userSettings = new Map<string, unknown>();

function configuration(section: string) {
  const read = (key: string) => {
    recorded.settings.push(`${section}.${key}`);
    return userSettings.get(`${section}.${key}`);
  };
  return {
    get: (key: string, fallback?: unknown) => read(key) ?? fallback,
    inspect: (key: string) => ({ key, globalValue: read(key) }),
    has: () => false,
    update: async () => undefined,
  };
}

const call = (name: string) => recorded.calls.push(name);

const api = {
  EventEmitter,
  TreeItem: class {
    constructor(
      public label: unknown,
      public collapsibleState?: number,
    ) {}
  },
  ThemeIcon: class {
    constructor(public id: string) {}
  },
  ThemeColor: class {
    constructor(public id: string) {}
  },
  MarkdownString: class {
    constructor(public value = '') {}
  },
  Uri: {
    parse: (s: string) => ({ scheme: s.split(':')[0], path: s, toString: () => s }),
    file: (p: string) => ({ scheme: 'file', fsPath: p, path: p, toString: () => `file://${p}` }),
  },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  DiagnosticSeverity: { Error: 0, Warning: 1 },
  ProgressLocation: { Notification: 15 },
  commands: {
    registerCommand: (id: string) => (call(`commands.registerCommand:${id}`), disposable()),
    executeCommand: async (id: string, ...args: unknown[]) => void recorded.executed.push([id, ...args]),
  },
  l10n: {
    t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)),
  },
  window: {
    createOutputChannel: () => ({ trace() {}, debug() {}, info() {}, warn() {}, error() {}, show() {}, dispose() {} }),
    createTreeView: (id: string) => {
      call(`window.createTreeView:${id}`);
      // The sidebar open on the Instances view, as VS Code restores it.
      return { visible: id === 'gpuRental.instances', message: '', description: undefined, onDidChangeVisibility: event(), dispose() {} };
    },
    createStatusBarItem: () => (call('window.createStatusBarItem'), { show() {}, hide() {}, dispose() {} }),
    onDidChangeWindowState: event(),
    onDidChangeActiveTextEditor: event(),
    visibleTextEditors: [],
    showErrorMessage: async () => undefined,
    showWarningMessage: async () => undefined,
    showInformationMessage: async () => undefined,
  },
  workspace: {
    getConfiguration: configuration,
    onDidChangeConfiguration: event(),
    registerTextDocumentContentProvider: (scheme: string) => (call(`workspace.registerTextDocumentContentProvider:${scheme}`), disposable()),
    textDocuments: [],
    isTrusted: true,
    onDidOpenTextDocument: event(),
    onDidSaveTextDocument: event(),
    onDidChangeTextDocument: event(),
    onDidCloseTextDocument: event(),
    onDidGrantWorkspaceTrust: event(),
    createFileSystemWatcher: () => (call('workspace.createFileSystemWatcher'), { onDidDelete: event(), dispose() {} }),
  },
  languages: { createDiagnosticCollection: () => (call('languages.createDiagnosticCollection'), { set() {}, delete() {}, forEach() {}, dispose() {} }) },
};

const resolveFilename = (Module as any)._resolveFilename;
(Module as any)._resolveFilename = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? 'vscode' : resolveFilename.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: api } as unknown as NodeJS.Module;

function memento() {
  const m = new Map<string, unknown>();
  return { get: (k: string, d?: unknown) => (m.has(k) ? m.get(k) : d), update: async (k: string, v: unknown) => void m.set(k, v), keys: () => [...m.keys()] };
}

/** An ExtensionContext with in-memory states and secrets (`stored`: secret storage's keys and values). */
export function fakeContext(stored: Record<string, string> = {}) {
  return {
    subscriptions: [] as Array<{ dispose(): unknown }>,
    globalState: memento(),
    workspaceState: memento(),
    secrets: {
      get: async (key: string) => (recorded.secrets.push(key), stored[key]),
      store: async () => undefined,
      delete: async () => undefined,
      onDidChange: event(),
    },
    extensionUri: api.Uri.file('/extension'),
  };
}
