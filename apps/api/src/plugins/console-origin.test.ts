import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { checkoutSessions } from '../db/schema/index.js';
import { loadApiConfig } from '../env.js';
import { setupTestApp } from '../testing/setup-test-app.js';

// Issue #53: a change through the console's routes must come from the console (CSRF), whatever the
// cookie's SameSite let through; bodies are JSON.
const t = setupTestApp({}, { identity: true });
const consoleOrigin = new URL(loadApiConfig({}).consoleUrl).origin;

const signedIn = () => t.signUpMember();

/** Card setups the organisation started: what a forged "start a card setup" would leave behind. */
const setupsOf = async (organizationId: string) =>
  t.testDb.db
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.organizationId, organizationId), eq(checkoutSessions.mode, 'setup')));

describe('changes through the console routes come from the console', () => {
  it('refuses a body-less POST from another site, with the victim’s cookies and text/plain, and changes nothing (403)', async () => {
    const victim = await signedIn();
    for (const headers of [
      { origin: 'https://evil.example', 'content-type': 'text/plain' },
      { origin: 'null' },
      // No Origin and no Sec-Fetch-Site: not a browser on the console's page.
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const forged = await t.app.inject({ method: 'POST', url: '/bff/auto-top-up/payment-method', headers: { cookie: victim.cookie, ...headers } });
      expect(forged.statusCode, JSON.stringify(headers)).toBe(403);
      expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(forged.json()).toMatchObject({ status: 403, detail: 'This request did not come from the Meterway console. Make the change in the console.' });
    }
    expect(await setupsOf(victim.organizationId)).toEqual([]);

    // The console itself, by its Origin or as a same-origin page.
    const fromConsole = await t.app.inject({
      method: 'POST',
      url: '/bff/auto-top-up/payment-method',
      headers: { cookie: victim.cookie, origin: consoleOrigin },
    });
    expect(fromConsole.statusCode, fromConsole.body).toBe(200);
    const sameOrigin = await t.app.inject({
      method: 'POST',
      url: '/bff/auto-top-up/payment-method',
      headers: { cookie: victim.cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.statusCode, sameOrigin.body).toBe(200);
    expect(await setupsOf(victim.organizationId)).toHaveLength(2);
  });

  it('refuses a change from the console whose body is not JSON (415), and lets another site read nothing new: GETs pass to CORS', async () => {
    const member = await signedIn();
    const notJson = await t.app.inject({
      method: 'PUT',
      url: '/bff/alert-settings',
      headers: { cookie: member.cookie, origin: consoleOrigin, 'content-type': 'text/plain' },
      payload: JSON.stringify({ lowBalance: 5, keyBudgetPercents: [50] }),
    });
    expect(notJson.statusCode).toBe(415);
    expect(notJson.json()).toMatchObject({ status: 415, detail: 'The request body must be JSON (Content-Type: application/json).' });

    // A read changes nothing; the browser keeps its answer from another site (no CORS header for it).
    const read = await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie: member.cookie, origin: 'https://evil.example' } });
    expect(read.statusCode).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('guards the admin area the same way', async () => {
    const member = await signedIn();
    const forged = await t.app.inject({
      method: 'POST',
      url: `/admin/persons/${member.personId}/credit-grants`,
      headers: { cookie: member.cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      payload: { amount: 5, note: 'forged', expiresOn: '2099-01-01' },
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().detail).toBe('This request did not come from the Meterway console. Make the change in the console.');
  });
});
