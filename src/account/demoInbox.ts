// The demo's inbox. The demo account has no real e-mail address or phone, so a 2FA step that
// "sends a code" would dead-end at "Enter the 6-digit code sent to your account e-mail". The
// simulator keeps what it sent (GET /_sim/inbox, demo mode only); the 2FA prompts show the
// newest code as a hint where the user is looking: in the input box itself.
import * as z from 'zod/mini';

export interface InboxMessage {
  channel: 'email' | 'sms';
  to: string;
  code: string;
  /** Simulator time, Unix seconds. */
  at: number;
}

const inboxSchema = z.object({
  messages: z.array(
    z.object({
      channel: z.enum(['email', 'sms']),
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
      if (!res.ok) throw new Error(`the demo inbox answered HTTP ${res.status}`);
      const parsed = inboxSchema.safeParse(await res.json());
      if (!parsed.success) throw new Error('the demo inbox sent an answer of an unexpected shape');
      return parsed.data.messages;
    },
  };
}

/** The newest message on `channel` sent at or after `since` (Unix seconds), if any. */
export function newestCode(messages: readonly InboxMessage[], channel: 'email' | 'sms', since: number): InboxMessage | undefined {
  return [...messages].reverse().find((m) => m.channel === channel && m.at >= since);
}

/** "Demo inbox: the e-mail to demo@example.com says 123456" */
export function inboxHint(m: InboxMessage): string {
  return `Demo inbox: the ${m.channel === 'email' ? 'e-mail' : 'SMS'} to ${m.to} says ${m.code}`;
}
