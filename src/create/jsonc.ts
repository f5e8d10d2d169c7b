// Template files are JSONC (comments and trailing commas allowed, like VS Code's own settings
// files), parsed by Microsoft's jsonc-parser, the parser VS Code itself uses for settings: its
// parseTree gives the offset and length of every key and value, which is what puts a validation
// problem on the right range. This file adapts its tree to what validation reads: the plain value
// (every key an own property, `__proto__` included), one location per path, and errors a person
// can act on. Nesting is bounded before the recursive parse so a hostile file cannot exhaust the
// stack.
import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { pathKey, setOwn, type JsonPath } from './jsonPath';
import * as l10n from '@vscode/l10n';

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

/** Deeper nesting than this is refused: no template needs it, and it must never exhaust the stack. */
const MAX_DEPTH = 64;

/** What each of jsonc-parser's error codes means, said so the reader knows what to fix. */
const MESSAGES: Partial<Record<ReturnType<typeof printParseErrorCode>, () => string>> = {
  InvalidSymbol: () => l10n.t('Unexpected character (property names and text go in "double quotes")'),
  InvalidNumberFormat: () => l10n.t('Invalid number'),
  PropertyNameExpected: () => l10n.t('Expected a property name in double quotes'),
  ValueExpected: () => l10n.t('Expected a value'),
  ColonExpected: () => l10n.t('Expected ":" after the property name'),
  CommaExpected: () => l10n.t('Expected "," between two entries'),
  CloseBraceExpected: () => l10n.t('Expected {0}', '"}"'),
  CloseBracketExpected: () => l10n.t('Expected {0}', '"]"'),
  EndOfFileExpected: () => l10n.t('Unexpected content after the end of the JSON value'),
  InvalidCommentToken: () => l10n.t('Invalid comment'),
  UnexpectedEndOfComment: () => l10n.t('Unterminated block comment'),
  UnexpectedEndOfString: () => l10n.t('Unterminated string'),
  UnexpectedEndOfNumber: () => l10n.t('Unexpected end of number'),
  InvalidUnicode: () => l10n.t('Invalid \\u escape in string'),
  InvalidEscapeCharacter: () => l10n.t('Invalid escape in string'),
  InvalidCharacter: () => l10n.t('Invalid character in string (a line break or control character: escape it)'),
};

/**
 * The offset of the first bracket that opens level MAX_DEPTH + 1, found without recursion. A
 * token is told by its first character (a string or comment token starts with `"` or `/`), which
 * needs none of the parser's const enums.
 */
function tooDeepAt(text: string): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (scanner.scan(); scanner.getTokenOffset() < text.length; scanner.scan()) {
    const c = text[scanner.getTokenOffset()];
    if (c === '{' || c === '[') {
      if (++depth > MAX_DEPTH) return scanner.getTokenOffset();
    } else if (c === '}' || c === ']') depth = Math.max(0, depth - 1);
  }
  return undefined;
}

/** The value of `node` (its depth is bounded by tooDeepAt), recording where each path sits. */
function valueOf(node: Node, path: JsonPath, locations: Map<string, JsonLocation>, key?: Node): unknown {
  const loc: JsonLocation = { offset: node.offset, length: node.length };
  if (key) {
    loc.keyOffset = key.offset;
    loc.keyLength = key.length;
  }
  locations.set(pathKey(path), loc);
  if (node.type === 'object') {
    const obj: Record<string, unknown> = {};
    for (const prop of node.children ?? []) {
      const [name, value] = prop.children ?? [];
      if (!name || !value) continue;
      const k = name.value as string;
      setOwn(obj, k, valueOf(value, [...path, k], locations, name));
    }
    return obj;
  }
  if (node.type === 'array') return (node.children ?? []).map((child, n) => valueOf(child, [...path, n], locations));
  return node.value;
}

export function parseJsonc(text: string): JsoncResult {
  const locations = new Map<string, JsonLocation>();
  const fail = (message: string, offset: number, length: number): JsoncResult => ({
    value: undefined,
    errors: [{ message, offset, length: Math.max(1, length) }],
    locations,
  });
  // A byte order mark is not JSON, but editors write one; a space keeps every offset.
  const source = text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
  const deep = tooDeepAt(source);
  if (deep !== undefined) return fail(l10n.t('Nested too deeply (more than {0} levels). Flatten the structure', MAX_DEPTH), deep, 1);
  const errors: ParseError[] = [];
  const root = parseTree(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length || !root) {
    const first = errors[0];
    return first
      ? fail(MESSAGES[printParseErrorCode(first.error)]?.() ?? l10n.t('Invalid JSON'), first.offset, first.length)
      : fail(l10n.t('Unexpected end of file'), source.length, 1);
  }
  return { value: valueOf(root, [], locations), errors: [], locations };
}
