import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { setupTestApp } from '../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });
const me = (cookie: string) => t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie } });

describe('session auth through identity', () => {
  it('follows the e-mail in identity: a changed address is unverified until its code is entered', async () => {
    const user = await t.users.signUp();
    expect((await me(user.cookie)).json().email).toBe(user.email);
    const next = `renamed-${Date.now()}@example.com`;
    const settings = await user.identity('GET', '/self-service/settings/browser');
    const changed = await user.identity('POST', `/self-service/settings?flow=${settings.body.id}`, {
      method: 'profile',
      traits: { email: next },
      csrf_token: user.csrf(settings.body),
    });
    expect(changed.status).toBe(200);

    t.expireSessionCache();
    const unverified = await me(user.cookie);
    expect(unverified.statusCode).toBe(401);
    expect(unverified.json()).toMatchObject({ code: 'EmailNotVerified', email: next });

    const outbox = await user.identity('GET', `/dev/outbox?to=${encodeURIComponent(next)}`);
    const verificationId = changed.body.continue_with.find((item: any) => item.action === 'show_verification_ui').flow.id;
    await user.identity('POST', `/self-service/verification?flow=${verificationId}`, { method: 'code', code: outbox.body.messages.at(-1).code });
    t.expireSessionCache();
    const after = await me(user.cookie);
    expect(after.statusCode).toBe(200);
    expect(after.json().email).toBe(next);
  });

  it("passes identity's 403 session_aal2_required through while the second factor is due", async () => {
    const user = await t.users.signUp();
    const settings = await user.identity('GET', '/self-service/settings/browser');
    const secret = settings.body.ui.nodes.find((node: any) => node.attributes.id === 'totp_secret_key').attributes.text.context.secret;
    await user.identity('POST', `/self-service/settings?flow=${settings.body.id}`, {
      method: 'totp',
      totp_code: await generate({ secret }),
      csrf_token: user.csrf(settings.body),
    });
    const logout = await user.identity('GET', '/self-service/logout/browser');
    await user.identity('GET', `/self-service/logout?token=${logout.body.logout_token}`);
    const login = await user.identity('GET', '/self-service/login/browser');
    const pending = await user.identity('POST', `/self-service/login?flow=${login.body.id}`, {
      method: 'password',
      identifier: user.email,
      password: 'a long and unusual passphrase 42',
      csrf_token: user.csrf(login.body),
    });
    expect(pending.status).toBe(422);

    const response = await me(user.cookie);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.id).toBe('session_aal2_required');
  });

  it('answers 503 with a retry hint when identity does not answer', async () => {
    const { createApp } = await import('../app.js');
    const { loadApiConfig } = await import('../env.js');
    const offline = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'silent', IDENTITY_URL: 'http://127.0.0.1:9' }), db: t.testDb.handle });
    try {
      const response = await offline.inject({ method: 'GET', url: '/bff/me', headers: { cookie: 'ory_kratos_session=x' } });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('2');
      expect(response.json()).toMatchObject({ status: 503, detail: 'The identity service does not answer. Try again in a moment.' });
    } finally {
      await offline.close();
    }
  });
});
