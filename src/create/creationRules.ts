// The creation rules applied to the request a template would send. They live once, in the
// API layer (validateCreateRequest); this only turns its "path: message" strings into paths.
import type { CreateInstanceRequest } from '../api/types';
import { validateCreateRequest } from '../api/schemas';
import type { JsonPath } from './jsonPath';

export interface CreationProblem {
  /** Path inside the creation request, e.g. ['env', '-e FOO=1']. */
  path: JsonPath;
  message: string;
}

const PREFIX = /^((?:[A-Za-z_][\w]*)(?:\.[A-Za-z_][\w]*)*)((?:\["(?:[^"\\]|\\.)*"\])*): ([\s\S]*)$/;

/** `env["-e X=1"]: looks like…` -> { path: ['env', '-e X=1'], message: 'looks like…' }. */
export function parseProblem(s: string): CreationProblem {
  const m = PREFIX.exec(s);
  if (!m) return { path: [], message: s };
  const path: JsonPath = m[1]!.split('.');
  for (const k of m[2]!.matchAll(/\[("(?:[^"\\]|\\.)*")\]/g)) {
    try {
      path.push(JSON.parse(k[1]!) as string);
    } catch {
      return { path: path.slice(0, 1), message: m[3]! }; // never an exception: the field is still right
    }
  }
  return { path, message: m[3]! };
}

export function creationRuleProblems(req: CreateInstanceRequest, interruptible: boolean): CreationProblem[] {
  return validateCreateRequest(req, { interruptible }).map(parseProblem);
}
