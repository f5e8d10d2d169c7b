// A minimal stand-in for the 'vscode' module, enough for dist/extension.js to load (not activate).
const Module = require('node:module');
const handler = { get: (t, k) => (k in t ? t[k] : k === '__esModule' ? false : new Proxy(function () {}, handler)), apply: () => new Proxy(function () {}, handler), construct: () => new Proxy({}, handler) };
const stub = new Proxy({}, handler);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: stub };
