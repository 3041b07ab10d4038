import { sampleValue } from '@meterway/service/read-metrics';
import { describe, expect, it } from 'vitest';
import { countedMailer } from '../mail/counted-mailer.js';
import { logIn, signUp, testPassword } from '../testing/flows.js';
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
    expect(await count('mails_total', 'sent')).toBe(1);
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
    expect(sampleValue(text, 'meterway_identity_http_request_duration_seconds_count', { route: '/self-service/login', method: 'POST', status_code: '200' })).toBe(1);
  });

  it('count a mail the transport refuses as failed, and let the failure through', async () => {
    const outcomes: string[] = [];
    const refusing = countedMailer({ send: async () => Promise.reject(new Error('SMTP is down')) }, { mail: (outcome) => outcomes.push(outcome) });
    await expect(refusing.send({ to: 'a@example.com', subject: 's', text: 't', html: 'h' })).rejects.toThrow('SMTP is down');
    expect(outcomes).toEqual(['failed']);
  });
});
