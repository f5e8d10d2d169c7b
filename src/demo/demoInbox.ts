// The demo's inbox. The demo account has no real e-mail address or phone, so a 2FA step that
// "sends a code" would dead-end at "Enter the 6-digit code sent to your account e-mail". The
// simulator keeps what it sent (GET /_sim/inbox, demo mode only); the 2FA prompts show the
// newest code as a hint where the user is looking: in the input box itself.
import * as z from 'zod/mini';
import { totp } from '../sim/totp';
import * as l10n from '@vscode/l10n';

/**
 * The code an authenticator app would show now for a demo account's TOTP secret: the demo plays
 * the user's phone against the in-process simulator, so it computes with the simulator's own TOTP.
 */
export function demoTotpCode(secret: string): string {
  return totp(secret, Date.now() / 1000);
}

export interface InboxMessage {
  /** 'app': what an authenticator app on the account shows now (`to` is the method's label). */
  channel: 'email' | 'sms' | 'app';
  to: string;
  code: string;
  /** Simulator time, Unix seconds. */
  at: number;
}

const inboxSchema = z.object({
  messages: z.array(
    z.object({
      channel: z.enum(['email', 'sms', 'app']),
      to: z.string(),
      code: z.string().check(z.regex(/^\d{6}$/)),
      at: z.number(),
    }),
  ),
});

export interface DemoInbox {
  /** Every message so far, oldest first. */
  messages(): Promise<InboxMessage[]>;
}

/** The inbox of the simulator at `baseUrl`, read with the demo account's key. */
export function simulatorInbox(baseUrl: string, token: () => string | undefined, fetchImpl: typeof fetch = fetch): DemoInbox {
  return {
    async messages() {
      const key = token();
      const res = await fetchImpl(`${baseUrl.replace(/\/+$/, '')}/_sim/inbox/`, {
        headers: { Accept: 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
        signal: AbortSignal.timeout(5000),
      });
      if (!res.ok) throw new Error(l10n.t('the demo inbox answered HTTP {0}', res.status));
      const parsed = inboxSchema.safeParse(await res.json());
      if (!parsed.success) throw new Error(l10n.t('the demo inbox sent an answer of an unexpected shape'));
      return parsed.data.messages;
    },
  };
}

/** The newest message on `channel` sent at or after `since` (Unix seconds), if any. */
export function newestCode(messages: readonly InboxMessage[], channel: InboxMessage['channel'], since: number): InboxMessage | undefined {
  return [...messages].reverse().find((m) => m.channel === channel && m.at >= since);
}

/** "Demo inbox: the e-mail to demo@example.com says 123456" */
export function inboxHint(m: InboxMessage): string {
  if (m.channel === 'app') return l10n.t('Demo inbox: the authenticator app "{0}" shows {1} now', m.to, m.code);
  return l10n.t('Demo inbox: the {0} to {1} says {2}', m.channel === 'email' ? 'e-mail' : 'SMS', m.to, m.code);
}
