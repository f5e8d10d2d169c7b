// Turning any failure into one sentence for the user (what happened, what to do next).
import { redact } from '../api/redact';

interface UserFacing {
  userMessage(): string;
}

function hasUserMessage(e: unknown): e is UserFacing {
  return typeof e === 'object' && e !== null && typeof (e as { userMessage?: unknown }).userMessage === 'function';
}

/** The kind of an ApiError-like value ('rate_limited', 'network', 'auth', ...), if any. */
export function errorKind(e: unknown): string | undefined {
  const k = typeof e === 'object' && e !== null ? (e as { kind?: unknown }).kind : undefined;
  return typeof k === 'string' ? k : undefined;
}

export function describeError(e: unknown): string {
  if (hasUserMessage(e)) {
    try {
      return redact(e.userMessage());
    } catch {
      // fall through to the generic text
    }
  }
  const msg = e instanceof Error ? e.message : String(e);
  return redact(msg || 'Something went wrong. Check the "GPU Rental" output channel for details and try again.');
}
