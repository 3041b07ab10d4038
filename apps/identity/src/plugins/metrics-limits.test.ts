import { sampleValue } from '@meterway/service/read-metrics';
import { describe, expect, it } from 'vitest';
import { injectBrowser, logIn, signUp, suiteTally } from '../testing/inject-browser.js';
import { setupTestApp } from '../testing/setup-test-app.js';

// Limits scaled down to one or two attempts, so a few requests reach them.
const identityUrl = 'http://localhost:4000';
const limited = setupTestApp({ IDENTITY_RATE_LIMIT_MULTIPLIER: '0.05', IDENTITY_URL: identityUrl });
const other = setupTestApp({ IDENTITY_URL: identityUrl });
const tally = suiteTally('metrics under limits');

const count = async (app: typeof limited.app, name: string, outcome: string) =>
  sampleValue((await app.inject({ url: '/metrics' })).body, `meterway_identity_${name}`, { outcome });

describe("identity's metrics under its attempt limits", () => {
  it('count logins and sign-ups the limits refused (429) as rate_limited, in this app only', async () => {
    const browser = injectBrowser(() => limited.app, tally, { identityUrl, ip: '203.0.113.9' });
    const { email } = await signUp(browser, `limits-${Date.now()}@example.com`);
    let refusedLogins = 0;
    let wrongPasswords = 0;
    for (let attempt = 0; attempt < 20 && refusedLogins < 2; attempt++) {
      const status = (
        await logIn(
          injectBrowser(() => limited.app, tally, { identityUrl, ip: '203.0.113.9' }),
          email,
          'not the password at all',
        )
      ).statusCode;
      if (status === 429) refusedLogins++;
      else wrongPasswords++;
    }
    expect(refusedLogins).toBe(2);
    expect(await count(limited.app, 'logins_total', 'rate_limited')).toBe(2);
    expect(await count(limited.app, 'logins_total', 'invalid_credentials')).toBe(wrongPasswords);

    let refusedSignUps = 0;
    for (let attempt = 0; attempt < 20 && refusedSignUps === 0; attempt++) {
      await signUp(
        injectBrowser(() => limited.app, tally, { identityUrl, ip: '203.0.113.9' }),
        `limits-${attempt}-${Date.now()}@example.com`,
      ).catch(() => refusedSignUps++);
    }
    expect(await count(limited.app, 'registrations_total', 'rate_limited')).toBe(1);

    expect(await count(other.app, 'logins_total', 'rate_limited')).toBe(0);
    expect(await count(other.app, 'registrations_total', 'success')).toBe(0);
  });
});
