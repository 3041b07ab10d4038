import type { FrontendApi } from '@ory/client-fetch';
import { describe, expect, it } from 'vitest';
import { csrfOf, logIn, logOut, signUp, testPassword } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';

// Failed logins count per identifier and client address: five are free, then each next attempt
// waits 1 s, 2 s, 4 s… after the last. A browser that signed in to the identity before (its device
// cookie) is never held up. Every browser here shares one address (127.0.0.1).

const t = setupIdentityServer();

const attempt = async (api: FrontendApi, email: string, password: string) => {
  const flow = await api.createBrowserLoginFlow();
  return api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'password', identifier: email, password, csrf_token: csrfOf(flow) } });
};
const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    async (error: unknown) => (await failure(Promise.reject(error))).status,
  );

describe('failed logins', () => {
  it('are free five times, then wait 1 s, doubling; a right password after the wait clears them', async () => {
    const email = uniqueEmail('delay');
    await signUp(t.browser().api, email);
    const { api } = t.browser();
    for (let n = 0; n < 5; n++) expect(await statusOf(attempt(api, email, `wrong ${n}`))).toBe(400);

    const held = await failure(attempt(api, email, testPassword));
    expect(held.status).toBe(429);
    expect(held.body.error).toMatchObject({ id: 'rate_limit_exceeded', reason: 'Too many attempts. Try again in 1 second.', details: { retry_after: 1 } });

    t.clock.advance(1_000);
    expect(await statusOf(attempt(api, email, 'wrong 5'))).toBe(400);
    expect((await failure(attempt(api, email, testPassword))).body.error.details.retry_after).toBe(2);
    t.clock.advance(2_000);
    expect(await statusOf(attempt(api, email, 'wrong 6'))).toBe(400);
    expect((await failure(attempt(api, email, testPassword))).body.error.details.retry_after).toBe(4);

    t.clock.advance(4_000);
    expect(await statusOf(attempt(api, email, testPassword))).toBe(200);
    const { api: next } = t.browser();
    for (let n = 0; n < 5; n++) expect(await statusOf(attempt(next, email, `wrong again ${n}`))).toBe(400);
  });

  it('never hold up a browser that signed in to the identity before', async () => {
    const email = uniqueEmail('device');
    const owner = t.browser();
    await signUp(owner.api, email);
    await logOut(owner.api);
    await logIn(owner.api, email);
    await logOut(owner.api);

    const attacker = t.browser();
    for (let n = 0; n < 5; n++) await statusOf(attempt(attacker.api, email, `guess ${n}`));
    expect(await statusOf(attempt(attacker.api, email, 'guess 5'))).toBe(429);
    // Another browser on that address is held up, even with the right password…
    expect(await statusOf(attempt(t.browser().api, email, testPassword))).toBe(429);
    // …but not the owner's, whose browser signed in before.
    expect((await attempt(owner.api, email, testPassword)).session.identity?.traits).toEqual({ email });
    expect(owner.jar.header()).toContain('meterway_identity_device=');
  });
});
