// The path of a value inside a template (`['instance', 'env', 'A']`) and what every reader of
// one needs: the key a location map is indexed by, the text a problem shows, and a setter that
// keeps `__proto__` as data. Kept apart from the parser (src/create/jsonc.ts) so the
// activation bundle, which only matches file names, never loads it.

export type JsonPath = Array<string | number>;

export function pathKey(path: JsonPath): string {
  return JSON.stringify(path);
}

/** `instance.env["-p 8080:8080"]`, `offer.gpuNames[0]`; the root is `(template)`. */
export function formatPath(path: JsonPath): string {
  if (path.length === 0) return '(template)';
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${quoteKey(p)}]`;
  }
  return out;
}

/**
 * Sets an own, enumerable property, whatever its name: `obj["__proto__"] = v` would replace
 * the object's prototype (dropping the value) instead of storing it as data.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A key as a JSON string with every invisible character escaped (JSON.stringify leaves DEL, C1 and U+2028/9 raw). */
function quoteKey(k: string): string {
  return JSON.stringify(k).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
