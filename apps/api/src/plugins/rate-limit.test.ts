import { describe, expect, it } from 'vitest';
import { setupTestApp } from '../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

describe('the mutation rate limit', () => {
  it('refuses the 61st change in a minute with a wait a person reads, and Retry-After in seconds', async () => {
    const { cookie } = await t.users.signUp();
    // An invalid body is enough: the limit counts the request before the body is validated.
    const change = () => t.app.inject({ method: 'POST', url: '/bff/publishable-keys', payload: {}, headers: { cookie } });
    for (let attempt = 0; attempt < 60; attempt++) expect((await change()).statusCode).toBe(400);

    const refused = await change();
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().detail).toMatch(/^Too many changes\. Try again in ([1-5]?\d seconds?|1 minute)\.$/);
  }, 60_000);
});
