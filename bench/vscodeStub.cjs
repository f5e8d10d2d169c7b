// A minimal stand-in for the 'vscode' module, enough for dist/extension.js to load (not activate).
const Module = require('node:module');
const handler = {
  get: (t, k) => (k in t ? t[k] : k === '__esModule' ? false : new Proxy(function () {}, handler)),
  apply: () => new Proxy(function () {}, handler),
  construct: () => new Proxy({}, handler),
};
// l10n is a real key: a bundle copies the module's own keys (esbuild's ESM interop), and messages
// made at load time go through vscode.l10n.t, which fills "{0}" with its arguments.
const l10n = { t: (message, ...args) => String(message).replace(/\{(\d+)\}/g, (m, i) => (i < args.length ? String(args[i]) : m)) };
const stub = new Proxy({ l10n }, handler);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: stub };
