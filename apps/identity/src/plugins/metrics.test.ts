import { sampleValue } from '@meterway/service/read-metrics';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { countedMailer } from '../mail/counted-mailer.js';
import { csrfOf, logIn, logOut, signUp, testPassword } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';

const t = setupIdentityServer();

const scrape = async () => {
  const response = await fetch(`${t.baseUrl}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
};
const count = async (name: string, outcome: string) => sampleValue(await scrape(), `meterway_identity_${name}`, { outcome });

describe("identity's metrics", () => {
  it('count a sign-up and its verification mail, a login, a wrong password and a taken address by outcome', async () => {
    const email = uniqueEmail('metrics');
    const { api } = t.browser();
    await signUp(api, email);
    expect(await count('registrations_total', 'success')).toBe(1);
    // The courier sends the mail after the request: the counter moves once it has.
    await expect.poll(() => count('mails_total', 'sent')).toBe(1);
    expect(await count('mails_total', 'failed')).toBe(0);

    const stranger = t.browser().api;
    expect((await failure(logIn(stranger, email, `${testPassword} but wrong`))).status).toBe(400);
    expect(await count('logins_total', 'invalid_credentials')).toBe(1);
    expect(await count('logins_total', 'success')).toBe(0);
    await logIn(stranger, email);
    expect(await count('logins_total', 'success')).toBe(1);

    expect((await failure(signUp(t.browser().api, email))).status).toBe(400);
    expect(await count('registrations_total', 'duplicate_identifier')).toBe(1);
    const text = await scrape();
    expect(
      sampleValue(text, 'meterway_identity_http_request_duration_seconds_count', { route: '/self-service/login', method: 'POST', status_code: '200' }),
    ).toBe(1);
  });

  it('count a password that needs a second factor, a wrong code and the right one', async () => {
    const { api } = t.browser();
    const email = uniqueEmail('metrics-totp');
    await signUp(api, email);
    const settings = await api.createBrowserSettingsFlow();
    const secretNode = settings.ui.nodes.find((node) => (node.attributes as { id?: string }).id === 'totp_secret_key');
    const secret = (secretNode?.attributes as { text: { context: { secret: string } } }).text.context.secret;
    const codeAt = (when: Date) => generate({ secret, epoch: Math.floor(when.getTime() / 1000) });
    await api.updateSettingsFlow({
      flow: settings.id,
      updateSettingsFlowBody: { method: 'totp', totp_code: await codeAt(t.clock.now()), csrf_token: csrfOf(settings) },
    });
    await logOut(api);
    const before = { success: await count('logins_total', 'success'), second: await count('logins_total', 'second_factor_required') };

    expect((await failure(logIn(api, email))).status).toBe(422);
    expect(await count('logins_total', 'second_factor_required')).toBe(before.second + 1);
    const secondFactor = (code: string) =>
      api
        .createBrowserLoginFlow({ aal: 'aal2' })
        .then((flow) => api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'totp', totp_code: code, csrf_token: csrfOf(flow) } }));
    t.clock.advance(30_000);
    const code = await codeAt(t.clock.now());
    expect((await failure(secondFactor(code === '000000' ? '111111' : '000000'))).status).toBe(400);
    expect(await count('logins_total', 'invalid_totp_code')).toBe(1);
    await secondFactor(code);
    expect(await count('logins_total', 'success')).toBe(before.success + 1);
  });

  it('count a mail the transport refuses as failed, and let the failure through', async () => {
    const outcomes: string[] = [];
    const refusing = countedMailer({ send: async () => Promise.reject(new Error('SMTP is down')) }, { mail: (outcome) => outcomes.push(outcome) });
    await expect(refusing.send({ to: 'a@example.com', subject: 's', text: 't', html: 'h' })).rejects.toThrow('SMTP is down');
    expect(outcomes).toEqual(['failed']);
  });
});
