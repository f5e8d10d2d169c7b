// A small JSONC parser (comments and trailing commas allowed, like VS Code's own
// settings files) that also records where every value sits, so validation problems
// can be shown as diagnostics on the right range. Written here instead of adding
// jsonc-parser: ~150 lines, and the location map is exactly what validation needs.

export type JsonPath = Array<string | number>;

export interface JsonLocation {
  /** Offset of the value. */
  offset: number;
  length: number;
  /** Offset of the property name, when the value is an object member. */
  keyOffset?: number;
  keyLength?: number;
}

export interface JsoncParseError {
  message: string;
  offset: number;
  length: number;
}

export interface JsoncResult {
  value: unknown;
  errors: JsoncParseError[];
  /** Key: pathKey(path). */
  locations: Map<string, JsonLocation>;
}

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

/** Deeper nesting than this is refused: no template needs it, and it must never exhaust the stack. */
export const MAX_DEPTH = 64;

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

class ParseFailure extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export function parseJsonc(text: string): JsoncResult {
  const locations = new Map<string, JsonLocation>();
  let i = 0;

  const skip = (): void => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\uFEFF') i++;
      else if (c === '/' && text[i + 1] === '/') {
        while (i < text.length && text[i] !== '\n') i++;
      } else if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        if (end < 0) throw new ParseFailure('Unterminated block comment', i);
        i = end + 2;
      } else return;
    }
  };

  const parseString = (): string => {
    const start = i;
    const end = scanString(text, i);
    if (end < 0) throw new ParseFailure('Unterminated string', start);
    i = end;
    try {
      return JSON.parse(text.slice(start, end)) as string;
    } catch {
      throw new ParseFailure('Invalid escape in string', start);
    }
  };

  const parseValue = (path: JsonPath, key?: { offset: number; length: number }): unknown => {
    skip();
    const start = i;
    const c = text[i];
    let value: unknown;
    if ((c === '{' || c === '[') && path.length >= MAX_DEPTH) {
      throw new ParseFailure(`Nested too deeply (more than ${MAX_DEPTH} levels). Flatten the structure`, i);
    }
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      skip();
      while (text[i] !== '}') {
        skip();
        if (text[i] !== '"') throw new ParseFailure('Expected a property name in double quotes', i);
        const keyStart = i;
        const name = parseString();
        const keyLen = i - keyStart;
        skip();
        if (text[i] !== ':') throw new ParseFailure('Expected ":" after the property name', i);
        i++;
        setOwn(obj, name, parseValue([...path, name], { offset: keyStart, length: keyLen }));
        skip();
        if (text[i] === ',') {
          i++;
          skip();
        } else if (text[i] !== '}') throw new ParseFailure('Expected "," or "}"', i);
      }
      i++;
      value = obj;
    } else if (c === '[') {
      i++;
      const arr: unknown[] = [];
      skip();
      while (text[i] !== ']') {
        arr.push(parseValue([...path, arr.length]));
        skip();
        if (text[i] === ',') {
          i++;
          skip();
        } else if (text[i] !== ']') throw new ParseFailure('Expected "," or "]"', i);
      }
      i++;
      value = arr;
    } else if (c === '"') {
      value = parseString();
    } else {
      const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
      if (!m) throw new ParseFailure(i >= text.length ? 'Unexpected end of file' : 'Unexpected character', i);
      i += m[0].length;
      value = JSON.parse(m[0]);
    }
    const loc: JsonLocation = { offset: start, length: i - start };
    if (key) {
      loc.keyOffset = key.offset;
      loc.keyLength = key.length;
    }
    locations.set(pathKey(path), loc);
    return value;
  };

  try {
    const value = parseValue([]);
    skip();
    if (i < text.length) throw new ParseFailure('Unexpected content after the end of the JSON value', i);
    return { value, errors: [], locations };
  } catch (e) {
    if (e instanceof ParseFailure) {
      return { value: undefined, errors: [{ message: e.message, offset: e.offset, length: 1 }], locations };
    }
    throw e;
  }
}

/** Returns the offset just after the closing quote, or -1. */
function scanString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else if (c === '\n') return -1;
    else i++;
  }
  return -1;
}
