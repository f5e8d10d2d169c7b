// The one written rule for renting again (docs/guarantees.md): which answers to a create request
// PROVE that nothing was created. The create flow (src/create/rentOnce.ts) rents another offer,
// or sends the same request again, by itself only after an answer listed here. Every other
// outcome (no answer, a reset, a timeout, an unreadable answer, a 5xx, a 2xx that is not a clear
// success such as 200 {"success":false,"error":"rate_limit_exceeded"}, a refusal not listed
// here) proves nothing: the rental stays in the in-flight records, the instance list is asked,
// and what is still unknown after that is the user's call (or `{outcome: 'unknown'}` for a script).
//
// Sources: the published reference (/work/shared/spec/service-api.md, "Errors", "Limits") and how
// the live service differs today (service-today.md §9 "Creation errors" and "Rate limits", taken
// from the service's published OpenAPI files and the official CLI), and the field notes.
import { isApiError } from './errors';

/** What the flow does after a proven refusal. */
export type AfterRefusal =
  /** This offer cannot be had (taken, withdrawn, one's own machine): the next match may. */
  | 'next-offer'
  /** Refused before it was looked at: wait out the service's penalty, send the same request again. */
  | 'wait-and-resend'
  /** Refused for a reason another offer would not cure: stop, telling the user why. */
  | 'stop';

export interface ProvenRefusal {
  /** The HTTP status of a non-2xx answer (a 2xx never proves a refusal), or 'not-sent'. */
  status: number | 'not-sent';
  /** The body's `error` code; null: the row holds whatever the code (or none); undefined: no code. */
  code: string | null | undefined;
  then: AfterRefusal;
  meaning: string;
  source: string;
}

const SPEC_TODAY_9 = 'service-today.md §9 "Creation errors" (published OpenAPI create-instance responses, official CLI)';

/** The table: every answer that proves nothing was created. Nothing else does. */
export const PROVEN_REFUSALS: readonly ProvenRefusal[] = [
  { status: 404, code: 'no_such_ask', then: 'next-offer', meaning: 'rented by someone else, or withdrawn', source: SPEC_TODAY_9 },
  {
    status: 410,
    code: 'no_such_ask',
    then: 'next-offer',
    meaning: 'rented by someone else, or withdrawn (or not schedulable now: cancel_unavail)',
    source: `${SPEC_TODAY_9}; field-notes.md "An unavailable offer with cancel_unavail gives HTTP 410 no_such_ask"`,
  },
  { status: 403, code: undefined, then: 'next-offer', meaning: 'it is on one of your own machines', source: SPEC_TODAY_9 },
  { status: 403, code: 'own_machine', then: 'next-offer', meaning: 'it is on one of your own machines', source: SPEC_TODAY_9 },
  {
    status: 429,
    code: null,
    then: 'wait-and-resend',
    meaning: 'too frequent: refused before it was processed',
    source: 'service-api.md "Errors" and "Limits" (429 when requests come too often); service-today.md §9 "Rate limits" (create 4.5 s, penalty 12 s)',
  },
  { status: 400, code: 'invalid_args', then: 'stop', meaning: 'the request is invalid', source: SPEC_TODAY_9 },
  { status: 400, code: 'invalid_price', then: 'stop', meaning: 'the bid is below the offer’s minimum', source: SPEC_TODAY_9 },
  { status: 400, code: 'no_ssh_key_for_vm', then: 'stop', meaning: 'a VM needs an SSH key on the account first', source: SPEC_TODAY_9 },
  { status: 401, code: null, then: 'stop', meaning: 'the key was not accepted', source: 'service-api.md "Errors" (401 authentication)' },
  { status: 403, code: 'auth_error', then: 'stop', meaning: 'no valid authentication', source: 'service-api.md "Errors" (auth_error, 403)' },
  {
    status: 'not-sent',
    code: null,
    then: 'stop',
    meaning: 'the request failed this extension’s own checks and never left',
    source: 'this extension (src/api/instancesApi.ts validates a creation before sending it)',
  },
];

function statusOf(e: unknown): number | 'not-sent' | undefined {
  if (!isApiError(e)) return undefined;
  if (e.kind === 'invalid_request') return 'not-sent';
  // An ambiguous answer (a 5xx without an error body, an unreadable 2xx) carries a status but proves nothing.
  if ((e.kind !== 'http' && e.kind !== 'rate_limited' && e.kind !== 'auth') || e.status === undefined) return undefined;
  return e.status >= 400 ? e.status : undefined;
}

/** The row of the table this failed create proves, or undefined: the create's outcome is unknown. */
export function provenRefusal(e: unknown): ProvenRefusal | undefined {
  const status = statusOf(e);
  if (status === undefined || !isApiError(e)) return undefined;
  return PROVEN_REFUSALS.find((r) => r.status === status && (r.code === null || r.code === e.code));
}
