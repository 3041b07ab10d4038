import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { smtpMailer } from '@meterway/service';
import { sampleValue } from '@meterway/service/read-metrics';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { courierMessages } from '../db/schema/courier.js';
import type { CourierAttempt } from '../mail/courier.js';
import { csrfOf, signUp } from '../testing/flows.js';
import { setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';
import { codeIn, subjectOf } from '../testing/mail-catcher.js';

// Mail goes through the courier (Kratos' courier_messages): a request only queues it, so an SMTP
// outage (here a port that refuses) fails no sign-up or recovery; the courier retries after 1, 2,
// 4… minutes of the test clock and gives up after six attempts. Its attempts are awaited as events.

/** An address where nothing listens: connecting to it is refused. */
const refusingPort = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  });
});
let smtpUp = true;
const attempts: CourierAttempt[] = [];
const listeners: (() => void)[] = [];
const t = setupIdentityServer({
  courier: {
    pollIntervalMs: 20,
    onAttempt: (attempt) => {
      attempts.push(attempt);
      listeners.splice(0).forEach((listener) => listener());
    },
  },
  transport: (catcherUrl, from) => ({ send: (mail) => smtpMailer(smtpUp ? catcherUrl : `smtp://127.0.0.1:${refusingPort}`, from).send(mail) }),
});

/** The verification mail queued to `email`. */
const messageTo = async (email: string) =>
  (
    await t.testDb.db
      .select()
      .from(courierMessages)
      .where(and(eq(courierMessages.recipient, email), eq(courierMessages.template, 'verification_code')))
  )[0];

/** The courier's n-th attempt (1-based) at the verification mail to `email`, once it happens. */
async function attemptFor(email: string, n: number): Promise<CourierAttempt> {
  for (;;) {
    const row = await messageTo(email);
    const found = row && attempts.find((attempt) => attempt.id === row.id && attempt.attempts === n);
    if (found) return found;
    await new Promise<void>((resolve) => listeners.push(resolve));
  }
}
const minute = 60_000;
const mailsCounted = async (outcome: 'sent' | 'failed') =>
  sampleValue(await (await fetch(`${t.baseUrl}/metrics`)).text(), 'meterway_identity_mails_total', { outcome });

describe('the courier', () => {
  it('lets sign-up and recovery succeed while SMTP is down, and delivers the mail once it is back', async () => {
    smtpUp = false;
    const email = uniqueEmail('courier-outage');
    const { api } = t.browser();
    const verificationFlowId = await signUp(api, email);
    expect(await attemptFor(email, 1)).toMatchObject({ template: 'verification_code', outcome: 'retry' });
    const queued = await messageTo(email);
    expect(queued).toMatchObject({ status: 'queued', sendCount: 1 });
    expect(queued?.lastError).toMatch(/ECONNREFUSED/);
    // Each attempt counts once in identity's metrics.
    expect(await mailsCounted('failed')).toBe(1);

    const stranger = t.browser();
    const recovery = await stranger.api.createBrowserRecoveryFlow();
    const sent = await stranger.api.updateRecoveryFlow({ flow: recovery.id, updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(recovery) } });
    expect(sent.state).toBe('sent_email');

    smtpUp = true;
    t.clock.advance(minute);
    expect(await attemptFor(email, 2)).toMatchObject({ outcome: 'sent' });
    expect(await mailsCounted('sent')).toBeGreaterThanOrEqual(1);
    // The recovery code may have gone out first (its first attempt can fall after SMTP came back).
    const mail = t.mail.mailsTo(email).find((candidate) => subjectOf(candidate) === 'Please verify your email address');
    if (!mail) throw new Error('the verification mail was reported sent but did not arrive');
    const code = codeIn(mail);
    const flow = await api.getVerificationFlow({ id: verificationFlowId });
    const verified = await api.updateVerificationFlow({ flow: flow.id, updateVerificationFlowBody: { method: 'code', code, csrf_token: csrfOf(flow) } });
    expect(verified.state).toBe('passed_challenge');
    // A sent mail keeps no body: its code is not left in the database.
    expect(await messageTo(email)).toMatchObject({ status: 'sent', sendCount: 2, textBody: '', htmlBody: '' });
  });

  it('retries after 1, 2, 4, 8 and 16 minutes, then abandons the mail', async () => {
    smtpUp = false;
    const email = uniqueEmail('courier-abandon');
    await signUp(t.browser().api, email);
    expect(await attemptFor(email, 1)).toMatchObject({ outcome: 'retry' });
    for (const [n, waitMinutes] of [
      [2, 1],
      [3, 2],
      [4, 4],
      [5, 8],
    ] as const) {
      t.clock.advance(waitMinutes * minute - 1_000);
      expect((await messageTo(email))?.sendCount).toBe(n - 1);
      t.clock.advance(1_000);
      expect(await attemptFor(email, n)).toMatchObject({ outcome: 'retry' });
    }
    t.clock.advance(16 * minute);
    expect(await attemptFor(email, 6)).toMatchObject({ outcome: 'abandoned' });
    expect(await messageTo(email)).toMatchObject({ status: 'abandoned', sendCount: 6, textBody: '', htmlBody: '' });
    smtpUp = true;
  });
});
