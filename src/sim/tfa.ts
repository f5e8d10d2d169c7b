// Two-factor authentication endpoints (placeholder: status only; full state machine follows).
import { fail } from './errors';
import type { Principal } from './server';
import type { SimState } from './state';

export function userRecord(state: SimState): Record<string, unknown> {
  const u = state.user;
  return {
    id: u.id,
    email: u.email,
    credit: Math.round(u.credit * 10000) / 10000,
    ssh_key: u.ssh_key,
    full_name: u.full_name,
    tfa_status: u.legacy && state.tfa.enabled ? 'legacy' : state.tfa.enabled ? 'enabled' : 'disabled',
    email_verified_at: u.emailVerified ? 1700000000 : null,
  };
}

export function handleTfa(
  state: SimState,
  method: string,
  path: string,
  _body: { json: Record<string, unknown> | undefined; bad: boolean },
  who: Principal | undefined,
  _tokenPresent: boolean,
): { status: number; body: unknown } {
  if (!who) throw fail(403, 'auth_error', 'Authentication failed. Sign in again.');
  if (path === '/api/v0/tfa/status' && method === 'GET') {
    return { status: 200, body: { success: true, tfa_enabled: state.tfa.enabled, methods: [], backup_codes_remaining: 0, new_method_authorized: false } };
  }
  throw fail(404, 'not_found', `No endpoint ${method} ${path}.`);
}
