import type { FrontendApi } from '@ory/client-fetch';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { csrfOf, signUp } from '../testing/flows.js';
import { setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';
import { type CaughtMail, decodedText, subjectOf } from '../testing/mail-catcher.js';

// ASVS 2.5.5 / 3.7.1: the owner hears of a new password, a new e-mail address (at the old one) and
// a removed second factor, with where to recover the account and nothing that grants access.

const t = setupIdentityServer();

async function saveSettings(api: FrontendApi, body: Record<string, unknown>) {
  const flow = await api.createBrowserSettingsFlow();
  return api.updateSettingsFlow({ flow: flow.id, updateSettingsFlowBody: { ...body, csrf_token: csrfOf(flow) } as never });
}

function expectNotice(mail: CaughtMail, subject: string, says: string) {
  expect(subjectOf(mail)).toBe(subject);
  const text = decodedText(mail);
  expect(text).toContain(says);
  expect(text).toContain('If you did not make this change, recover your account now: http://127.0.0.1:3999/recover-password');
  expect(text).not.toMatch(/\n\d{6}\r?\n|\/self-service\//);
}

describe('mail to the account when it changes', () => {
  it('a new password: a notice to the address', async () => {
    const email = uniqueEmail('notice-password');
    const { api } = t.browser();
    await signUp(api, email);
    await saveSettings(api, { method: 'password', password: 'a different and much longer passphrase 7' });
    expectNotice(await t.mail.waitForMail(email, 2), 'Your password was changed', 'The password of your Meterway account was just changed.');
  });

  it('a new e-mail address: the notice goes to the old address, naming the new one', async () => {
    const email = uniqueEmail('notice-old');
    const replacement = uniqueEmail('notice-new');
    const { api } = t.browser();
    await signUp(api, email);
    await saveSettings(api, { method: 'profile', traits: { email: replacement } });
    expectNotice(
      await t.mail.waitForMail(email, 2),
      'Your e-mail address was changed',
      `The e-mail address of your Meterway account was just changed from ${email} to ${replacement}; this address no longer signs in.`,
    );
    // The new address gets its verification code, and no notice.
    await t.mail.waitForMail(replacement, 1);
    expect(t.mail.mailsTo(replacement).map(subjectOf)).toEqual(['Please verify your email address']);
  });

  it('a removed second factor: a notice to the address', async () => {
    const email = uniqueEmail('notice-totp');
    const { api } = t.browser();
    await signUp(api, email);
    const settings = await api.createBrowserSettingsFlow();
    const node = settings.ui.nodes.find((candidate) => (candidate.attributes as { id?: string }).id === 'totp_secret_key');
    const secret = (node?.attributes as { text: { context: { secret: string } } }).text.context.secret;
    await api.updateSettingsFlow({
      flow: settings.id,
      updateSettingsFlowBody: { method: 'totp', totp_code: await generate({ secret }), csrf_token: csrfOf(settings) },
    });
    await t.mail.waitForMail(email, 1);
    await saveSettings(api, { method: 'totp', totp_unlink: true });
    expectNotice(
      await t.mail.waitForMail(email, 2),
      'Your second factor was removed',
      'The authenticator app was just unlinked from your Meterway account: signing in now needs only the password.',
    );
  });
});
